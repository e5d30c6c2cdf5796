# The pipeline as file targets: change one parameter and only the stages after it rerun.
# Every stage writes its output atomically (the tools' -o writes a temporary file and renames
# it), so an interrupted run never leaves a corrupt file that make would trust.
#
#   make demo                  build release binaries, run on examples/, print the groups
#   make groups                run the pipeline into $(WORK)/ (parameters below)
#   make test                  all tests
#   make THRESHOLD=0.8 groups  rescoring reruns only pl-score and pl-cluster

WORK      ?= work
DOCS      ?= examples/docs.ndjson
BIN       ?= target/release
CARGO_BUILD ?= cargo build --release --quiet -p pl-cli

NGRAM            ?= 3
MIN_WORDS        ?= 20
PERMS            ?= 256
SEED             ?= 42
BANDS            ?= 32
MIN_BAND_MATCHES ?= 1
THRESHOLD        ?= 0.75
JACCARD_WEIGHT   ?= 0.55
FUZZY_WEIGHT     ?= 0.45
FUZZY_SAMPLE     ?= 10000
SCORE_FLAGS      ?=

TOOLS   := pl-fetch pl-normalize pl-shingle pl-minhash pl-lsh pl-score pl-cluster pl-cat pl-eval pl-report pl-apply
BINS    := $(addprefix $(BIN)/,$(TOOLS))
SOURCES := Cargo.toml $(wildcard Cargo.lock) $(shell find crates -name '*.rs' -o -name Cargo.toml)

.PHONY: all demo groups eval quality-floor readme-eval readme-tuning test clean FORCE
.DELETE_ON_ERROR:

all: groups

demo: groups
	@$(BIN)/pl-cat --table $(WORK)/groups.ndjson --docs $(WORK)/docs.ndjson

groups: $(WORK)/groups.ndjson

$(BINS) &: $(SOURCES)
	$(CARGO_BUILD)
	@touch $(BINS)

$(WORK):
	@mkdir -p $@

# One stamp file per stage holds its parameters; it is rewritten only when they change,
# so its date tells make whether the stage's settings moved since the last run.
define params
$(WORK)/$(1).params: FORCE | $(WORK)
	@echo '$(2)' | cmp -s - $$@ || echo '$(2)' > $$@
endef
$(eval $(call params,docs,$(DOCS)))
$(eval $(call params,shingle,$(NGRAM) $(MIN_WORDS)))
$(eval $(call params,minhash,$(PERMS) $(SEED)))
$(eval $(call params,lsh,$(BANDS) $(MIN_BAND_MATCHES)))
$(eval $(call params,score,$(THRESHOLD) $(JACCARD_WEIGHT) $(FUZZY_WEIGHT) $(FUZZY_SAMPLE) $(SCORE_FLAGS)))

ifdef PAPERLESS_URL
# From a Paperless-NGX server (PAPERLESS_TOKEN in the environment): asked every run, synced
# incrementally (state in docs.ndjson.state.json); the file is left untouched when nothing
# changed, so the stages after it rerun only after real changes. See docs/PAPERLESS.md.
$(WORK)/docs.ndjson: FORCE $(BIN)/pl-fetch | $(WORK)
	$(BIN)/pl-fetch -o $@
else
$(WORK)/docs.ndjson: $(DOCS) $(WORK)/docs.params
	cp $(DOCS) $@.tmp && mv $@.tmp $@
endif

$(WORK)/norm.ndjson: $(WORK)/docs.ndjson $(BIN)/pl-normalize
	$(BIN)/pl-normalize -q $< -o $@

$(WORK)/shingles.bin: $(WORK)/norm.ndjson $(WORK)/shingle.params $(BIN)/pl-shingle
	$(BIN)/pl-shingle $< --ngram $(NGRAM) --min-words $(MIN_WORDS) -o $@

$(WORK)/sigs.bin: $(WORK)/shingles.bin $(WORK)/minhash.params $(BIN)/pl-minhash
	$(BIN)/pl-minhash $< --ngram $(NGRAM) --perms $(PERMS) --seed $(SEED) -o $@

$(WORK)/cands.ndjson: $(WORK)/sigs.bin $(WORK)/lsh.params $(BIN)/pl-lsh
	$(BIN)/pl-lsh $< --perms $(PERMS) --bands $(BANDS) --min-band-matches $(MIN_BAND_MATCHES) -o $@

$(WORK)/scores.ndjson: $(WORK)/cands.ndjson $(WORK)/sigs.bin $(WORK)/norm.ndjson $(WORK)/score.params $(BIN)/pl-score
	$(BIN)/pl-score $< --sigs $(WORK)/sigs.bin --norm $(WORK)/norm.ndjson --perms $(PERMS) \
	  --threshold $(THRESHOLD) --jaccard-weight $(JACCARD_WEIGHT) --fuzzy-weight $(FUZZY_WEIGHT) \
	  --fuzzy-sample $(FUZZY_SAMPLE) $(SCORE_FLAGS) -o $@

$(WORK)/groups.ndjson: $(WORK)/scores.ndjson $(WORK)/norm.ndjson $(BIN)/pl-cluster
	$(BIN)/pl-cluster $< --docs $(WORK)/norm.ndjson -o $@

TRUTH ?= examples/truth.ndjson

# Pairwise and B-cubed precision/recall of the groups against the truth file.
eval: $(WORK)/eval.json
	@$(BIN)/pl-eval --truth $(TRUTH) --format table $(WORK)/groups.ndjson

$(WORK)/eval.json: $(WORK)/groups.ndjson $(TRUTH) $(BIN)/pl-eval
	$(BIN)/pl-eval --truth $(TRUTH) $< -o $@

# Records the current example-corpus quality as the floor the tests hold it to.
quality-floor: $(WORK)/eval.json
	cp $< tests/quality-floor.json

# Writes the example-corpus evaluation into the README between its markers.
readme-eval: $(WORK)/groups.ndjson $(BIN)/pl-eval
	$(BIN)/pl-eval --truth $(TRUTH) --format table $(WORK)/groups.ndjson > $(WORK)/eval.txt
	python3 scripts/splice.py README.md eval $(WORK)/eval.txt

# Writes the bands-versus-rows table of the tuning guide from pl-lsh --explain.
readme-tuning: $(BIN)/pl-lsh | $(WORK)
	scripts/tuning_table.sh $(BIN) > $(WORK)/tuning.md
	python3 scripts/splice.py README.md tuning $(WORK)/tuning.md

test:
	python3 -m unittest scripts/test_gen_corpus.py
	cargo test --workspace

clean:
	rm -rf $(WORK)

# pl-fetch against the real Paperless-NGX 3.0.5 backend in ../shared/paperless/real: loads
# $(DOCS), full sync, changes and deletions through the API, incremental syncs, each output
# checked. setup.sh installs its Python packages into PAPERLESS_REAL_STATE (default
# /tmp/pl-real-paperless) the first time, minutes; later runs reuse them.
.PHONY: real-paperless-test
real-paperless-test: $(BIN)/pl-fetch
	BIN=$(BIN) DOCS=$(DOCS) scripts/real-paperless-test.sh

# ---------------------------------------------------------------------------------------------
# Review and write-back (docs/REVIEW.md).
#
#   make report            $(WORK)/report.html from the demo's groups: open it in a browser
#   make browser-test      the page in headless Chromium: renders, filters, decides, exports,
#                          stays inert with hostile text, --serve saves decisions (installs
#                          Debian's chromium and the playwright-core driver first:
#                          scripts/browser-setup.sh); screenshots in target/browser/
#   make real-apply-test   pl-apply against the real Paperless-NGX 3.0.5 (tag, trash, undo);
#                          PAPERLESS_REAL_STATE as for real-paperless-test
REPORT_FLAGS ?=

.PHONY: report browser-test real-apply-test

report: $(WORK)/report.html
	@echo "open $(WORK)/report.html in a browser (docs/REVIEW.md)"

$(WORK)/report.html: $(WORK)/groups.ndjson $(WORK)/docs.ndjson $(WORK)/scores.ndjson $(BIN)/pl-report
	$(BIN)/pl-report $< --docs $(WORK)/docs.ndjson --scores $(WORK)/scores.ndjson $(REPORT_FLAGS) -o $@

browser-test: $(WORK)/groups.ndjson $(WORK)/scores.ndjson $(BIN)/pl-report
	scripts/browser-setup.sh
	cd tests/browser && PL_BIN=$(abspath $(BIN)) GROUPS=$(abspath $(WORK)/groups.ndjson) \
	  DOCS=$(abspath $(WORK)/docs.ndjson) SCORES=$(abspath $(WORK)/scores.ndjson) \
	  node --test report.test.mjs

real-apply-test: $(BIN)/pl-apply $(BIN)/pl-report
	BIN=$(BIN) DOCS=$(DOCS) scripts/real-apply-test.sh
