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
THRESHOLD        ?= 0.65
JACCARD_WEIGHT   ?= 0.55
FUZZY_WEIGHT     ?= 0.45
FUZZY_SAMPLE     ?= 10000
SCORE_FLAGS      ?=
SHINGLE_FLAGS    ?=
CLUSTER_FLAGS    ?=
# The reference product's configuration (plain MinHash scoring, union-find): `make preset-reference`.
REFERENCE_FLAGS  := UNIT=words NGRAM=3 BANDS=32 EDGE_WORDS=0 THRESHOLD=0.75 \
                    SHINGLE_FLAGS="--short skip" SCORE_FLAGS="--no-containment --no-verify" \
                    CLUSTER_FLAGS="--linkage single"

TOOLS   := pl-fetch pl-normalize pl-shingle pl-minhash pl-lsh pl-score pl-cluster pl-cat pl-eval pl-trigram pl-report pl-apply
BINS    := $(addprefix $(BIN)/,$(TOOLS))
SOURCES := Cargo.toml $(wildcard Cargo.lock) $(shell find crates -name '*.rs' -o -name Cargo.toml)

.PHONY: all demo groups eval quality quality-floor ocr-corpus ocr-deps readme-eval readme-tuning test clean FORCE
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
	@echo '$(strip $(2))' | cmp -s - $$@ || echo '$(strip $(2))' > $$@
endef
$(eval $(call params,docs,$(DOCS)))
$(eval $(call params,shingle,$(UNIT) $(NGRAM) $(MIN_WORDS) $(SHINGLE_FLAGS)))
$(eval $(call params,minhash,$(PERMS) $(SEED) $(SCHEME)))
$(eval $(call params,lsh,$(BANDS) $(MIN_BAND_MATCHES) $(EDGE_WORDS)))
$(eval $(call params,score,$(THRESHOLD) $(JACCARD_WEIGHT) $(FUZZY_WEIGHT) $(FUZZY_SAMPLE) $(SCORE_FLAGS)))

ifdef PAPERLESS_URL
# From a Paperless-NGX server (PAPERLESS_TOKEN in the environment): asked every run, synced
# incrementally (state in docs.ndjson.state.json); the file is left untouched when nothing
# changed, so the stages after it rerun only after real changes. See docs/PAPERLESS.md.
$(WORK)/docs.ndjson: FORCE $(BIN)/pl-fetch | $(WORK)
	@scripts/source-guard.sh $(WORK) 'paperless $(PAPERLESS_URL)'
	$(BIN)/pl-fetch -o $@
	@echo 'paperless $(PAPERLESS_URL)' > $(WORK)/docs.source
else
# A folder holding a fetched library is not silently switched to a file (SWITCH_SOURCE=1 does).
$(WORK)/docs.ndjson: $(DOCS) $(WORK)/docs.params
	@scripts/source-guard.sh $(WORK) 'file $(DOCS)'
	cp $(DOCS) $@.tmp && mv $@.tmp $@
endif

$(WORK)/norm.ndjson: $(WORK)/docs.ndjson $(BIN)/pl-normalize
	$(BIN)/pl-normalize -q $< -o $@

$(WORK)/shingles.bin: $(WORK)/norm.ndjson $(WORK)/shingle.params $(BIN)/pl-shingle
	$(BIN)/pl-shingle $< --unit $(UNIT) --ngram $(NGRAM) --min-words $(MIN_WORDS) $(SHINGLE_FLAGS) -o $@

$(WORK)/sigs.bin: $(WORK)/shingles.bin $(WORK)/minhash.params $(BIN)/pl-minhash
	$(BIN)/pl-minhash $< --ngram $(NGRAM) --perms $(PERMS) --seed $(SEED) --scheme $(SCHEME) -o $@

# Head and tail sketches: a copy with a page added or removed, or a cover sheet, shares one
# edge with its original when the whole texts share too little for a candidate.
EDGE_SIGS := $(if $(filter 0,$(EDGE_WORDS)),,$(WORK)/heads.bin $(WORK)/tails.bin)

$(WORK)/heads.bin $(WORK)/tails.bin: $(WORK)/%s.bin: $(WORK)/norm.ndjson $(WORK)/shingle.params \
    $(WORK)/minhash.params $(WORK)/lsh.params $(BIN)/pl-minhash
	$(BIN)/pl-minhash -q $< --unit $(UNIT) --ngram $(NGRAM) --min-words $(MIN_WORDS) $(SHINGLE_FLAGS) \
	  --part $*:$(EDGE_WORDS) --perms $(PERMS) --seed $(SEED) --scheme $(SCHEME) -o $@

$(WORK)/cands.ndjson: $(WORK)/sigs.bin $(EDGE_SIGS) $(WORK)/lsh.params $(BIN)/pl-lsh
	$(BIN)/pl-lsh $< $(addprefix --also ,$(EDGE_SIGS)) --perms $(PERMS) --bands $(BANDS) \
	  --min-band-matches $(MIN_BAND_MATCHES) -o $@

$(WORK)/scores.ndjson: $(WORK)/cands.ndjson $(WORK)/sigs.bin $(WORK)/norm.ndjson $(WORK)/score.params $(BIN)/pl-score
	$(BIN)/pl-score $< --sigs $(WORK)/sigs.bin --norm $(WORK)/norm.ndjson --perms $(PERMS) \
	  --threshold $(THRESHOLD) --jaccard-weight $(JACCARD_WEIGHT) --fuzzy-weight $(FUZZY_WEIGHT) \
	  --fuzzy-sample $(FUZZY_SAMPLE) $(SCORE_FLAGS) -o $@

$(eval $(call params,cluster,$(CLUSTER_FLAGS)))

$(WORK)/groups.ndjson: $(WORK)/scores.ndjson $(WORK)/norm.ndjson $(WORK)/cluster.params $(BIN)/pl-cluster
	$(BIN)/pl-cluster $< --docs $(WORK)/norm.ndjson $(CLUSTER_FLAGS) -o $@

TRUTH ?= examples/truth.ndjson

# Pairwise and B-cubed precision/recall of the groups against the truth file.
eval: $(WORK)/eval.json
	@$(BIN)/pl-eval --truth $(TRUTH) --format table $(WORK)/groups.ndjson

$(WORK)/eval.json: $(WORK)/groups.ndjson $(TRUTH) $(BIN)/pl-eval
	$(BIN)/pl-eval --truth $(TRUTH) $< -o $@

# The real-OCR fixture (examples/ocr/README.md, `make ocr-corpus`): its pipeline runs in
# $(WORK)/ocr with the same parameters as the example corpus's.
OCR_FIXTURE := examples/ocr
OCR_MAKE     = $(MAKE) --no-print-directory -s WORK=$(WORK)/ocr DOCS=$(OCR_FIXTURE)/docs.ndjson \
               TRUTH=$(OCR_FIXTURE)/truth.ndjson
OCR_CHECK    = @test -s $(OCR_FIXTURE)/docs.ndjson -a -s $(OCR_FIXTURE)/truth.ndjson || { echo \
               "$@: $(OCR_FIXTURE)/docs.ndjson or truth.ndjson is missing (make ocr-corpus makes them)" >&2; \
               exit 1; }

# Records the current quality of the example corpus and of the real-OCR fixture as the floor
# the tests hold them to: {"example": pl-eval's JSON, "ocr": pl-eval's JSON}.
quality-floor: $(WORK)/eval.json
	$(OCR_CHECK)
	@$(OCR_MAKE) $(WORK)/ocr/eval.json
	python3 -c 'import json, sys; j = lambda p: json.dumps(json.load(open(p)), ensure_ascii=False, \
	  separators=(",", ":")); print("{\n\"example\": %s,\n\"ocr\": %s\n}" % (j(sys.argv[1]), j(sys.argv[2])))' \
	  $< $(WORK)/ocr/eval.json > tests/quality-floor.json.tmp
	mv tests/quality-floor.json.tmp tests/quality-floor.json

# Writes the evaluation of the example corpus and of the real-OCR fixture into the README
# between its markers (fails, README untouched, when the fixture is missing).
readme-eval: $(WORK)/groups.ndjson $(BIN)/pl-eval
	$(OCR_CHECK)
	@$(MAKE) --no-print-directory -s preset-reference > /dev/null
	@$(OCR_MAKE) groups
	{ echo "default:"; $(BIN)/pl-eval --truth $(TRUTH) --format table $(WORK)/groups.ndjson; \
	  echo; echo "reference (make preset-reference):"; \
	  $(BIN)/pl-eval --truth $(TRUTH) --format table $(WORK)/preset-reference/groups.ndjson | head -n 3; \
	  echo; echo "real OCR (examples/ocr, Tesseract):"; \
	  $(BIN)/pl-eval --truth $(OCR_FIXTURE)/truth.ndjson --format table $(WORK)/ocr/groups.ndjson \
	    | sed -n '1,3p; /^noise /,$$p'; \
	} > $(WORK)/eval.txt
	python3 scripts/splice.py README.md eval $(WORK)/eval.txt

# Writes the bands-versus-rows table of the tuning guide from pl-lsh --explain.
readme-tuning: $(BIN)/pl-lsh | $(WORK)
	scripts/tuning_table.sh $(BIN) > $(WORK)/tuning.md
	python3 scripts/splice.py README.md tuning $(WORK)/tuning.md

# Doc tests, then unit tests, then the integration tests that run the real binaries (last, so
# the run ends on the suite that counts most).
test:
	python3 -m unittest discover -s scripts/gen_corpus -t scripts
	cargo test --workspace --doc
	cargo test --workspace --lib
	cargo test -p pl-cli --test integration

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
# Methods (docs/METHODS.md): each preset runs one method on $(DOCS) (the example corpus by
# default) into its own work dir, $(WORK)/preset-NAME/, and ends with its evaluation against
# $(TRUTH) (eval.json there, and the table on stdout). Same file targets and atomic outputs as
# above, so a rerun redoes only what changed.
#
#   make preset-minhash   the default pipeline: character 5-grams, MinHash K=256, LSH 32 x 8, score
#   make preset-oph       the default pipeline with one-permutation MinHash (SCHEME=oph)
#   make preset-trials    word 2-grams, 6 trials of TRIALS_H hashes (K = 6h = 84), a candidate when
#                         at least 2 trials agree (pl-lsh --bands 6 --min-band-matches 2), score
#   make preset-trigram   character trigrams through an inverted index (exact), no scoring stage
#   make presets          all of them
#   make trigram-groups   the trigram method in $(WORK)/ (trigram-pairs.ndjson, trigram-groups.ndjson)
#   make docs-methods     regenerates the generated parts of docs/METHODS.md

TRIALS_H          ?= 14
TRIALS_PERMS       = $(shell expr 6 \* $(TRIALS_H))
TRIGRAM_THRESHOLD ?= 0.75
PRESETS           := reference minhash oph chars trials trigram

.PHONY: presets $(addprefix preset-,$(PRESETS)) trigram-groups docs-methods

$(eval $(call params,trigram,$(TRIGRAM_THRESHOLD)))

$(WORK)/trigram-pairs.ndjson: $(WORK)/norm.ndjson $(WORK)/trigram.params $(BIN)/pl-trigram
	$(BIN)/pl-trigram $< --threshold $(TRIGRAM_THRESHOLD) -o $@

$(WORK)/trigram-groups.ndjson: $(WORK)/trigram-pairs.ndjson $(WORK)/norm.ndjson $(BIN)/pl-cluster
	$(BIN)/pl-cluster $< --docs $(WORK)/norm.ndjson -o $@

trigram-groups: $(WORK)/trigram-groups.ndjson

# $(call preset_eval,DIR,GROUPS): eval.json in DIR, then the table.
define preset_eval
	$(BIN)/pl-eval --truth $(TRUTH) $(1)/$(2) -o $(1)/eval.json
	@echo "== $(notdir $(1)): $(1)/$(2)"
	@$(BIN)/pl-eval --truth $(TRUTH) --format table $(1)/$(2)
endef

presets: $(addprefix preset-,$(PRESETS))

preset-minhash: $(BINS)
	@$(MAKE) --no-print-directory WORK=$(WORK)/$@ groups
	$(call preset_eval,$(WORK)/$@,groups.ndjson)

preset-oph: $(BINS)
	@$(MAKE) --no-print-directory WORK=$(WORK)/$@ SCHEME=oph groups
	$(call preset_eval,$(WORK)/$@,groups.ndjson)

preset-trials: $(BINS)
	@$(MAKE) --no-print-directory WORK=$(WORK)/$@ UNIT=words NGRAM=2 PERMS=$(TRIALS_PERMS) BANDS=6 EDGE_WORDS=0 \
	  MIN_BAND_MATCHES=2 groups
	$(call preset_eval,$(WORK)/$@,groups.ndjson)

preset-reference: $(BINS)
	@$(MAKE) --no-print-directory WORK=$(WORK)/$@ $(REFERENCE_FLAGS) groups
	$(call preset_eval,$(WORK)/$@,groups.ndjson)

preset-chars: $(BINS)
	@$(MAKE) --no-print-directory WORK=$(WORK)/$@ NGRAM=5 UNIT=chars groups
	$(call preset_eval,$(WORK)/$@,groups.ndjson)

preset-trigram: $(BINS)
	@$(MAKE) --no-print-directory WORK=$(WORK)/$@ trigram-groups
	$(call preset_eval,$(WORK)/$@,trigram-groups.ndjson)

# The trials table, the trials preset's S-curve and the three presets' scores, spliced into
# docs/METHODS.md between their markers (never typed by hand).
docs-methods: presets
	$(BIN)/pl-lsh --trials-table -o $(WORK)/trials-table.md
	python3 scripts/splice.py docs/METHODS.md trials-table $(WORK)/trials-table.md
	$(BIN)/pl-lsh --explain --perms $(TRIALS_PERMS) --bands 6 --min-band-matches 2 \
	  --threshold $(THRESHOLD) -o $(WORK)/trials-explain.txt
	python3 scripts/splice.py docs/METHODS.md trials-explain $(WORK)/trials-explain.txt
	for p in $(PRESETS); do echo "preset-$$p"; \
	  $(BIN)/pl-eval --truth $(TRUTH) --format table $(WORK)/preset-$$p/$$(if [ $$p = trigram ]; \
	  then echo trigram-groups; else echo groups; fi).ndjson | head -n 3 | sed 's/^/  /'; \
	  done > $(WORK)/methods-eval.txt
	python3 scripts/splice.py docs/METHODS.md methods-eval $(WORK)/methods-eval.txt

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

# ---------------------------------------------------------------------------------------------
# Benchmark (issue 6): our stages and pipeline against datasketch, rensa and gaoya on the same
# generated corpus, the exact baseline and recall on the smallest; writes BENCH.md.
#   make bench                            10k documents
#   BENCH_SIZES="10000 100000" make bench  adds 100k (1000000 works too)
.PHONY: bench

bench:
	scripts/bench/run.sh

# ---------------------------------------------------------------------------------------------
# docs/QUALITY.md: every configuration on a generated 10k-document corpus and on the real-OCR
# fixture, against their truth, and issue 14's targets judged; $(WORK)/quality/summary.json.
QUALITY_DOCS ?= 10000
quality: $(BINS)
	python3 scripts/quality.py --docs $(QUALITY_DOCS) --work $(WORK)/quality --bin $(BIN) \
	  --ocr-docs $(OCR_FIXTURE)/docs.ndjson --ocr-truth $(OCR_FIXTURE)/truth.ndjson

# The real-OCR fixture examples/ocr/ (examples/ocr/README.md): OCR_DOCS generated documents
# printed to page images, each scan degraded, read by Tesseract (scripts/ocr_corpus.py; about
# 45 minutes on two cores; each page's text is cached in $(WORK)/ocr-cache, so a rerun is quick).
# ocr-deps installs what it needs when missing: Tesseract with its English and German data and
# the fonts (apt-get, through sudo unless root), and the Python packages, pinned, in OCR_VENV.
# Never needed to test: CI reads the committed text.
OCR_DOCS ?= 1600
OCR_SEED ?= 11
OCR_VENV ?= $(WORK)/ocr-venv
OCR_APT  := tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu fonts-dejavu-core fonts-liberation
OCR_PIP  := pillow==11.0.0 numpy==2.1.3 rapidfuzz==3.10.1
SUDO      = $(if $(filter 0,$(shell id -u)),,sudo)

ocr-corpus: ocr-deps
	$(OCR_VENV)/bin/python scripts/ocr_corpus.py --docs $(OCR_DOCS) --seed $(OCR_SEED) \
	  --out-docs $(OCR_FIXTURE)/docs.ndjson --out-truth $(OCR_FIXTURE)/truth.ndjson --cache $(WORK)/ocr-cache

ocr-deps: $(OCR_VENV)/installed
	@missing=$$(for p in $(OCR_APT); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null \
	  | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then echo "ocr-deps: installing" $$missing; \
	  $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q --no-install-recommends $$missing; fi

$(eval $(call params,ocr-pip,$(OCR_PIP)))

# Reinstalled when the pins change.
$(OCR_VENV)/installed: $(WORK)/ocr-pip.params
	test -x $(OCR_VENV)/bin/pip || python3 -m venv $(OCR_VENV) || { echo "ocr-deps: python3 -m venv" \
	  "failed (on Debian: apt-get install python3-venv)" >&2; exit 1; }
	$(OCR_VENV)/bin/pip install -q $(OCR_PIP)
	touch $@
