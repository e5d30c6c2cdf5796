# The duplicate-finding pipeline as file targets, shared by the project's Makefile and by the
# installed `pl-dedupe` command (make install puts this file in $(PREFIX)/share/paperless-dedupe/).
# Change one parameter and only the stages after it rerun. Every stage writes its output
# atomically (the tools' -o writes a temporary file and renames it), so an interrupted run
# never leaves a corrupt file that make would trust.
#
#   groups                 run the pipeline into $(WORK)/ (parameters below); with an index,
#                          its incremental update
#   index                  build the persistent index $(WORK)/index (pl-index) and its groups
#   table                  the groups as a table (after groups)
#   eval                   precision and recall of the groups against $(TRUTH)
#   report                 $(WORK)/report.html, the review page
#   why A=12 B=57          why two documents are or are not grouped (pl-lsh --why, then
#                          pl-score --explain on the pair)
#   clean                  remove $(WORK)/
#   THRESHOLD=0.8 groups   fewer, surer groups: rescoring reruns only pl-score and pl-cluster
#
# Documents: $(DOCS) (a docs NDJSON file), or with PAPERLESS_URL (and PAPERLESS_TOKEN) in the
# environment the Paperless-NGX server, fetched incrementally.

WORK      ?= work
EXAMPLES  ?= examples
DOCS      ?= $(EXAMPLES)/docs.ndjson
TRUTH     ?= $(EXAMPLES)/truth.ndjson
BIN       ?= target/release
SCRIPTS   ?= scripts

NGRAM            ?= 5
UNIT             ?= chars
MIN_WORDS        ?= 20
PERMS            ?= 256
SEED             ?= 42
SCHEME           ?= classic
BANDS            ?= 32
# Words of each document's head and tail sketched apart (0: the whole text only).
EDGE_WORDS       ?= 60
MIN_BAND_MATCHES ?= 1
# A bucket of more documents than this pairs none of them: boilerplate (0: no limit).
MAX_BUCKET       ?= 50
# A pair must share buckets worth one bucket of this many documents, each shared bucket of n
# documents weighing 1/(n-1): template siblings meet only in crowded buckets (0: any bucket).
EVIDENCE_BUCKET  ?= 7
# 1: two documents sharing two numbers that at most 6 documents hold are a candidate too
# (pl-lsh --numbers); 0: the bands alone.
NUMBERS          ?= 1
# Match probability a pair needs: the fitted policy's estimate that the two are one document
# (its similarity where there is none: --no-verify, --no-rescue). Higher: fewer, surer groups.
THRESHOLD        ?= 0.5
# Similarity a pair needs before its texts are compared (rare numbers in both texts aside).
MIN_SIMILARITY   ?= 0.65
JACCARD_WEIGHT   ?= 0.55
FUZZY_WEIGHT     ?= 0.45
FUZZY_SAMPLE     ?= 10000
# Words of a document the verifier aligns (a longer one on its first and last halves of this),
# and of which pl-lsh --numbers reads the numbers: one setting for both.
MAX_WORDS        ?= 20000
SCORE_FLAGS      ?=
SHINGLE_FLAGS    ?=
CLUSTER_FLAGS    ?=
REPORT_FLAGS     ?=

# QUIET=1 (pl-dedupe -q): the stages say nothing on stderr but errors; otherwise each that runs
# ends with one line (a bar before it on a terminal).
Q = $(if $(filter 1,$(QUIET)),-q)

TOOLS   := pl-fetch pl-normalize pl-shingle pl-minhash pl-lsh pl-score pl-cluster pl-cat pl-eval pl-trigram pl-report pl-apply pl-index pl-check pl-watch
BINS    := $(addprefix $(BIN)/,$(TOOLS))

.PHONY: groups table eval report clean FORCE
.DELETE_ON_ERROR:

groups: $(WORK)/groups.ndjson

table: $(WORK)/groups.ndjson $(WORK)/docs.ndjson $(BIN)/pl-cat
	@$(BIN)/pl-cat --table $(WORK)/groups.ndjson --docs $(WORK)/docs.ndjson

$(WORK):
	@mkdir -p $@

# One stamp file per stage holds its parameters; it is rewritten only when they change,
# so its date tells make whether the stage's settings moved since the last run.
define params
$(WORK)/$(1).params: FORCE | $(WORK)
	@echo '$(strip $(2))' | cmp -s - $$@ || echo '$(strip $(2))' > $$@
endef
$(eval $(call params,docs,$(DOCS)))
$(eval $(call params,shingle,$(UNIT) $(NGRAM) $(MIN_WORDS) $(SHINGLE_FLAGS)))
$(eval $(call params,minhash,$(PERMS) $(SEED) $(SCHEME)))
$(eval $(call params,lsh,$(BANDS) $(MIN_BAND_MATCHES) $(MAX_BUCKET) $(EVIDENCE_BUCKET) $(EDGE_WORDS) $(NUMBERS) $(MAX_WORDS)))
$(eval $(call params,score,$(THRESHOLD) $(MIN_SIMILARITY) $(JACCARD_WEIGHT) $(FUZZY_WEIGHT) $(FUZZY_SAMPLE) $(MAX_WORDS) $(SCORE_FLAGS)))

ifdef PAPERLESS_URL
# From a Paperless-NGX server (PAPERLESS_TOKEN in the environment): asked every run, synced
# incrementally (state in docs.ndjson.state.json); the file is left untouched when nothing
# changed, so the stages after it rerun only after real changes. See docs/PAPERLESS.md.
$(WORK)/docs.ndjson: FORCE $(BIN)/pl-fetch | $(WORK)
	@$(SCRIPTS)/source-guard.sh $(WORK) 'paperless $(PAPERLESS_URL)'
	$(BIN)/pl-fetch $(Q) -o $@
	@echo 'paperless $(PAPERLESS_URL)' > $(WORK)/docs.source
else
# A folder holding a fetched library is not silently switched to a file (SWITCH_SOURCE=1 does).
$(WORK)/docs.ndjson: $(DOCS) $(WORK)/docs.params
	@$(SCRIPTS)/source-guard.sh $(WORK) 'file $(DOCS)'
	cp $(DOCS) $@.tmp && mv $@.tmp $@
endif

$(WORK)/norm.ndjson: $(WORK)/docs.ndjson $(BIN)/pl-normalize
	$(BIN)/pl-normalize $(Q) $< -o $@

# pl-minhash shingles the normalized text itself, with pl-shingle's code and flags: the same
# bytes as pl-shingle | pl-minhash, without writing the shingle stream (7 GB at a million
# documents). `make shingles` writes it, for looking at a stage.
.PHONY: shingles
shingles: $(WORK)/shingles.bin

$(WORK)/shingles.bin: $(WORK)/norm.ndjson $(WORK)/shingle.params $(BIN)/pl-shingle
	$(BIN)/pl-shingle $(Q) $< --unit $(UNIT) --ngram $(NGRAM) --min-words $(MIN_WORDS) $(SHINGLE_FLAGS) -o $@

$(WORK)/sigs.bin: $(WORK)/norm.ndjson $(WORK)/shingle.params $(WORK)/minhash.params $(BIN)/pl-minhash
	$(BIN)/pl-minhash $(Q) $< --unit $(UNIT) --ngram $(NGRAM) --min-words $(MIN_WORDS) $(SHINGLE_FLAGS) \
	  --perms $(PERMS) --seed $(SEED) --scheme $(SCHEME) -o $@

# Head and tail sketches: a copy with a page added or removed, or a cover sheet, shares one
# edge with its original when the whole texts share too little for a candidate.
EDGE_SIGS := $(if $(filter 0,$(EDGE_WORDS)),,$(WORK)/heads.bin $(WORK)/tails.bin)

$(WORK)/heads.bin $(WORK)/tails.bin: $(WORK)/%s.bin: $(WORK)/norm.ndjson $(WORK)/shingle.params \
    $(WORK)/minhash.params $(WORK)/lsh.params $(BIN)/pl-minhash
	$(BIN)/pl-minhash -q $< --unit $(UNIT) --ngram $(NGRAM) --min-words $(MIN_WORDS) $(SHINGLE_FLAGS) \
	  --part $*:$(EDGE_WORDS) --perms $(PERMS) --seed $(SEED) --scheme $(SCHEME) -o $@

# Documents sharing rare numbers: a copy whose whole text's bands miss its original.
NUMBER_NORM := $(if $(filter 1,$(NUMBERS)),$(WORK)/norm.ndjson)

LSH_ARGS = $(WORK)/sigs.bin $(addprefix --also ,$(EDGE_SIGS)) $(addprefix --numbers ,$(NUMBER_NORM)) \
	  $(if $(NUMBER_NORM),--max-words $(MAX_WORDS)) \
	  --perms $(PERMS) --bands $(BANDS) --min-band-matches $(MIN_BAND_MATCHES) \
	  --max-bucket $(MAX_BUCKET) --evidence-bucket $(EVIDENCE_BUCKET)

$(WORK)/cands.ndjson: $(WORK)/sigs.bin $(EDGE_SIGS) $(NUMBER_NORM) $(WORK)/lsh.params $(BIN)/pl-lsh
	$(BIN)/pl-lsh $(Q) $(LSH_ARGS) -o $@

$(WORK)/scores.ndjson: $(WORK)/cands.ndjson $(WORK)/sigs.bin $(WORK)/norm.ndjson $(WORK)/score.params $(BIN)/pl-score
	$(BIN)/pl-score $(Q) $< $(SCORE_ARGS) -o $@

SCORE_ARGS = --sigs $(WORK)/sigs.bin --norm $(WORK)/norm.ndjson --perms $(PERMS) \
	  --threshold $(THRESHOLD) --min-similarity $(MIN_SIMILARITY) --jaccard-weight $(JACCARD_WEIGHT) --fuzzy-weight $(FUZZY_WEIGHT) \
	  --fuzzy-sample $(FUZZY_SAMPLE) --max-words $(MAX_WORDS) $(SCORE_FLAGS)

# Why two documents are or are not in one group: `make why A=12 B=57` says whether pl-lsh
# proposes them and through which buckets and numbers (pl-lsh --why), then pl-score's verdict
# on the pair with its evidence (--explain), as the run judges it, proposed or not.
.PHONY: why
why: $(WORK)/sigs.bin $(EDGE_SIGS) $(WORK)/norm.ndjson $(BIN)/pl-lsh $(BIN)/pl-score $(BIN)/pl-cluster
	@case "$(A),$(B)" in *[!0-9,]*|,*|*,) cmd=$${PL_DEDUPE_CMD:-make}; \
	  echo "$$cmd why: give two document ids: $$cmd why A=12 B=57" >&2; exit 2;; esac
	@echo "candidates (pl-lsh --why):"
	@$(BIN)/pl-lsh -q $(LSH_ARGS) --why $(A),$(B)
	@echo "verdict (pl-score --explain; \"dropped\" says the step that dropped it):"
	@if [ $(A) -lt $(B) ]; then echo '{"a":$(A),"b":$(B)}'; else echo '{"a":$(B),"b":$(A)}'; fi \
	  | $(BIN)/pl-score -q - $(SCORE_ARGS) --explain --rejected /dev/stdout -o /dev/stdout
	@if [ -s $(WORK)/scores.ndjson ]; then \
	  echo "groups (pl-cluster --why, from the last run's $(WORK)/scores.ndjson):"; \
	  $(BIN)/pl-cluster -q $(WORK)/scores.ndjson $(CLUSTER_FLAGS) --why $(A),$(B); fi

$(eval $(call params,cluster,$(CLUSTER_FLAGS)))

# The persistent index (pl-index): `make index` builds $(WORK)/index from the documents; once it
# exists, the groups come from its incremental update (only new, changed and deleted documents
# are worked on; the groups are those of the stages above). It takes the parameters above and
# SCORE_FLAGS (pl-score's scoring flags, recorded with it) and CLUSTER_FLAGS=--across-owners
# (recorded too), no other SHINGLE_FLAGS or CLUSTER_FLAGS, and refuses parameters other than its own.
INDEX       := $(WORK)/index
INDEX_FLAGS  = --unit $(UNIT) --ngram $(NGRAM) --min-words $(MIN_WORDS) --perms $(PERMS) \
  --seed $(SEED) --scheme $(SCHEME) --bands $(BANDS) --min-band-matches $(MIN_BAND_MATCHES) \
  --max-bucket $(MAX_BUCKET) --evidence-bucket $(EVIDENCE_BUCKET) --edge-words $(EDGE_WORDS) --numbers $(NUMBERS) --threshold $(THRESHOLD) --min-similarity $(MIN_SIMILARITY) --jaccard-weight $(JACCARD_WEIGHT) \
  --fuzzy-weight $(FUZZY_WEIGHT) --fuzzy-sample $(FUZZY_SAMPLE) --max-words $(MAX_WORDS) $(SCORE_FLAGS) \
  $(filter --across-owners,$(CLUSTER_FLAGS))
index_guard = $(if $(strip $(SHINGLE_FLAGS)$(filter-out --across-owners,$(CLUSTER_FLAGS))),\
  $(error the index takes no SHINGLE_FLAGS or CLUSTER_FLAGS but --across-owners: unset them, or move $(INDEX) away))

.PHONY: index
index: $(WORK)/docs.ndjson $(BIN)/pl-index
	$(index_guard)$(BIN)/pl-index $(Q) --index $(INDEX) $< $(INDEX_FLAGS) -o $(WORK)/groups.ndjson

ifneq ($(wildcard $(INDEX)/index.sqlite),)
$(WORK)/groups.ndjson: $(WORK)/docs.ndjson $(BIN)/pl-index $(WORK)/shingle.params \
    $(WORK)/minhash.params $(WORK)/lsh.params $(WORK)/score.params $(WORK)/cluster.params
	$(index_guard)$(BIN)/pl-index $(Q) --index $(INDEX) $< $(INDEX_FLAGS) -o $@
else
$(WORK)/groups.ndjson: $(WORK)/scores.ndjson $(WORK)/norm.ndjson $(WORK)/cluster.params $(BIN)/pl-cluster
	$(BIN)/pl-cluster $(Q) $< --docs $(WORK)/norm.ndjson $(CLUSTER_FLAGS) -o $@
endif

# Pairwise and B-cubed precision/recall of the groups against the truth file.
eval: $(WORK)/eval.json
	@$(BIN)/pl-eval --truth $(TRUTH) --format table $(WORK)/groups.ndjson

$(WORK)/eval.json: $(WORK)/groups.ndjson $(TRUTH) $(BIN)/pl-eval
	$(BIN)/pl-eval $(Q) --truth $(TRUTH) $< -o $@

report: $(WORK)/report.html
	@echo "open $(WORK)/report.html in a browser (see REVIEW.md in the project's docs)"

$(WORK)/report.html: $(WORK)/groups.ndjson $(WORK)/docs.ndjson $(WORK)/scores.ndjson $(BIN)/pl-report
	$(BIN)/pl-report $(Q) $< --docs $(WORK)/docs.ndjson --scores $(WORK)/scores.ndjson $(REPORT_FLAGS) -o $@

clean:
	rm -rf $(WORK)
