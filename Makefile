# The project's make targets. The pipeline itself (its parameters and stages) is in
# pipeline.mk, included here and installed by `make install` as the `pl-dedupe` command.
#
#   make demo                  build release binaries, run on examples/, print the groups
#   make groups                run the pipeline into $(WORK)/ (parameters in pipeline.mk)
#   make test                  all tests
#   make install               the tools, man pages, completions and pl-dedupe in $(PREFIX)
#   make dist                  all of it in one versioned tarball, with the service's systemd
#                              unit and a compose example (docs/PAPERLESS.md, section 8)
#   make THRESHOLD=0.8 groups  fewer, surer groups: reruns only pl-score and pl-cluster

all: groups

CARGO_BUILD ?= cargo build --release -p pl-cli

include $(dir $(lastword $(MAKEFILE_LIST)))pipeline.mk

# The reference product's configuration (plain MinHash scoring, union-find): `make preset-reference`.
REFERENCE_FLAGS  := UNIT=words NGRAM=3 BANDS=32 EDGE_WORDS=0 NUMBERS=0 EVIDENCE_BUCKET=0 THRESHOLD=0.75 \
                    SHINGLE_FLAGS="--short skip" SCORE_FLAGS="--no-containment --no-verify" \
                    CLUSTER_FLAGS="--linkage single"

SOURCES := Cargo.toml $(wildcard Cargo.lock) $(shell find crates -name '*.rs' -o -name Cargo.toml)

.PHONY: all demo quality quality-floor ocr-corpus ocr-hard-corpus ocr-holdout-corpus ocr-near-corpus ocr-deps readme-eval readme-tuning test install uninstall

# The demo ends as `pl-dedupe run` does, in make's words (pl-dedupe summary says it for both):
# where the groups are, how sure the least sure is (a group's confidence is its strongest
# pair's match probability, which THRESHOLD gates), and what to run next.
demo: table $(BIN)/pl-dedupe
	@PL_DEDUPE_CMD=make $(BIN)/pl-dedupe summary --work '$(WORK)'

# Cargo shows its progress on a terminal (and its "Compiling" lines elsewhere): the first
# build compiles every dependency, a few minutes.
# pl-dedupe, the pipeline as one command (make install installs it), is built with the tools.
DRIVER := $(BIN)/pl-dedupe

$(BINS) $(DRIVER) &: $(SOURCES)
	@echo "make: building the pl-* tools (release, $(BIN)/); the first build takes a few minutes" >&2
	$(CARGO_BUILD) $(addprefix --bin ,$(BUILT))
	@touch $(addprefix $(BIN)/,$(or $(BUILT),$(TOOLS) pl-dedupe))

# make demo builds only the tools its pipeline runs, and pl-dedupe for its last lines: 9
# binaries fewer to link on a cold build. The others are built when a target needs them
# (make groups with an index, make install, make test).
DEMO_TOOLS := pl-normalize pl-minhash pl-lsh pl-score pl-cluster pl-cat pl-dedupe \
              $(if $(wildcard $(INDEX)/index.sqlite),pl-index) $(if $(PAPERLESS_URL),pl-fetch)
demo: BUILT = $(DEMO_TOOLS)

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

# Writes the evaluation of the example corpus and of the real-OCR fixture into docs/RESULTS.md
# (marker eval) and its pairs lines into README.md (marker eval-summary); fails, both
# untouched, when the fixture is missing.
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
	grep -E '^(default|reference .*|real OCR .*):$$|^pairs ' $(WORK)/eval.txt > $(WORK)/eval-summary.txt
	python3 scripts/splice.py docs/RESULTS.md eval $(WORK)/eval.txt
	python3 scripts/splice.py README.md eval-summary $(WORK)/eval-summary.txt

# Writes the bands-versus-rows table of docs/TUNING.md from pl-lsh --explain.
readme-tuning: $(BIN)/pl-lsh | $(WORK)
	scripts/tuning_table.sh $(BIN) > $(WORK)/tuning.md
	python3 scripts/splice.py docs/TUNING.md tuning $(WORK)/tuning.md

# Doc tests, then unit tests, then the package unpacked and run from an empty folder
# (dist-test, about 15 s once the release tools are built, as the integration tests need them
# too), then the integration tests that run the real binaries (last, so the run ends on the
# suite that counts most). In release, like the tools `make demo` built:
# the test builds reuse their compiled dependencies instead of building the world again in
# debug, and the integration tests run the optimized binaries (faster on the large corpora).
# What the first `make test` still compiles: the test harnesses, the test-only dependencies
# (assert_cmd, proptest, and pl-core's benchmark crate criterion), each once, and the tools
# make demo did not build.
CARGO_TEST ?= cargo test --release
test:
	python3 -m unittest discover -s scripts/gen_corpus -t scripts
	$(CARGO_TEST) --workspace --doc
	$(CARGO_TEST) --workspace --lib
	$(MAKE) --no-print-directory dist-test
	$(CARGO_TEST) -p pl-cli --test integration

# ---------------------------------------------------------------------------------------------
# Install (PREFIX, default ~/.local; DESTDIR for staging): the fifteen tools and the pl-dedupe
# command in $(PREFIX)/bin, a man page per tool, bash, zsh and fish completions where those
# shells look, and the pipeline (pipeline.mk, its script and the example corpus) that
# pl-dedupe runs in $(PREFIX)/share/paperless-dedupe. Man pages and completions are printed by
# the tools themselves, pl-dedupe too (--generate), from the same clap definitions as their --help.
# `make uninstall` (same PREFIX and DESTDIR) removes exactly these files.
PREFIX   ?= $(HOME)/.local
DESTDIR  ?=
ROOT      = $(DESTDIR)$(PREFIX)
BINDIR    = $(ROOT)/bin
MANDIR    = $(ROOT)/share/man/man1
SHAREDIR  = $(ROOT)/share/paperless-dedupe
BASHDIR   = $(ROOT)/share/bash-completion/completions
ZSHDIR    = $(ROOT)/share/zsh/site-functions
FISHDIR   = $(ROOT)/share/fish/vendor_completions.d
SHARED   := pipeline.mk scripts/source-guard.sh examples/docs.ndjson examples/truth.ndjson
COMMANDS := $(TOOLS) pl-dedupe
INSTALLED = $(addprefix $(BINDIR)/,$(COMMANDS)) $(patsubst %,$(MANDIR)/%.1,$(COMMANDS)) \
            $(addprefix $(BASHDIR)/,$(COMMANDS)) $(patsubst %,$(ZSHDIR)/_%,$(COMMANDS)) \
            $(patsubst %,$(FISHDIR)/%.fish,$(COMMANDS)) $(addprefix $(SHAREDIR)/,$(SHARED)) \
            $(HOOKDIR)/paperless-consume-hook.sh $(HOOKDIR)/hook.env.example
# The consume hook and a commented template of its settings (docs/PAPERLESS.md, section 6).
HOOKDIR   = $(SHAREDIR)/hook

install: $(BINS) $(DRIVER)
	@test -n "$(PREFIX)" || { echo "make install: PREFIX is empty" >&2; exit 1; }
	install -d $(BINDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR) $(SHAREDIR)/scripts $(SHAREDIR)/examples
	install -m 755 $(BINS) $(DRIVER) $(BINDIR)/
	for t in $(COMMANDS); do \
	  $(BIN)/$$t --generate man > $(MANDIR)/$$t.1 && \
	  $(BIN)/$$t --generate bash > $(BASHDIR)/$$t && \
	  $(BIN)/$$t --generate zsh > $(ZSHDIR)/_$$t && \
	  $(BIN)/$$t --generate fish > $(FISHDIR)/$$t.fish || exit 1; \
	done
	for f in $(SHARED); do install -m $$(test -x $$f && echo 755 || echo 644) $$f $(SHAREDIR)/$$f || exit 1; done
	install -d $(HOOKDIR)
	install -m 755 scripts/paperless-consume-hook.sh $(HOOKDIR)/
	sed 's|@BINDIR@|$(PREFIX)/bin|' scripts/hook.env.example > $(HOOKDIR)/hook.env.example
	@echo "installed in $(ROOT): the tools and pl-dedupe in bin/, man pages, bash, zsh and fish" \
	  "completions, the consume hook and its hook.env.example in $(HOOKDIR) (docs/USAGE.md, Install);" \
	  "make uninstall removes them"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "note: $(PREFIX)/bin is not on your PATH:" \
	  "add export PATH=\"$(PREFIX)/bin:\$$PATH\" to your shell's profile" ;; esac

uninstall:
	rm -f $(INSTALLED)
	@rmdir $(HOOKDIR) $(SHAREDIR)/scripts $(SHAREDIR)/examples $(SHAREDIR) 2>/dev/null || true

# Fails naming each file of the install list ($(INSTALLED), what uninstall removes) that
# install did not make: `make dist` runs it, so the list and the recipe cannot drift apart.
installed-check:
	@missing=$$(for f in $(INSTALLED); do test -e "$$f" || echo "$$f"; done); \
	test -z "$$missing" || { echo "make: in the install list but not installed:" $$missing >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# One package to drop in (docs/PAPERLESS.md, section 8). `make dist` writes
# $(DIST_DIR)/paperless-dedupe-VERSION-ARCH-linux-gnu.tar.gz (VERSION from Cargo.toml): what
# `make install` installs (staged with PREFIX=$(DIST_PREFIX), where its paths point; the tools
# find each other relative to bin/, so it runs from wherever it is unpacked), and in
# share/paperless-dedupe/dist/ pl-watch's systemd unit, a compose example and the compose
# service's entry script, in share/doc/paperless-dedupe/ the docs. Its binaries must need no
# glibc newer than GLIBC_FLOOR, the oldest of the official Paperless images (Debian bookworm's
# 2.36, up to Paperless 2.19; trixie's 2.41 since 2.20): scripts/dist/glibc.py reads each
# binary's version needs and refuses the package past it. Same sources, same tarball: sorted,
# owned by root, dated SOURCE_DATE_EPOCH (the last commit's date).
# `make dist-test` unpacks it into an empty folder and runs the pipeline, the service and its
# compose entry from there (scripts/dist/test.py, a few seconds; `make test` runs it).
VERSION     := $(shell awk -F'"' '/^\[workspace.package\]/ {p = 1; next} /^\[/ {p = 0} \
                 p && /^version *=/ {print $$2; exit}' Cargo.toml)
DIST_DIR    ?= target/dist
DIST_NAME   := paperless-dedupe-$(VERSION)
DIST_TAR     = $(DIST_DIR)/$(DIST_NAME)-$(shell uname -m)-linux-gnu.tar.gz
DIST_PREFIX := /opt/paperless-dedupe
GLIBC_FLOOR := 2.36
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || date +%s)
.PHONY: dist dist-test installed-check

dist: $(BINS)
	@test -n "$(VERSION)" || { echo "make dist: no version in Cargo.toml's [workspace.package]" >&2; exit 1; }
	rm -rf $(DIST_DIR)/stage
	$(MAKE) --no-print-directory -s install installed-check PREFIX=$(DIST_PREFIX) \
	  DESTDIR=$(abspath $(DIST_DIR)/stage/root) > /dev/null
	mv $(DIST_DIR)/stage/root$(DIST_PREFIX) $(DIST_DIR)/stage/$(DIST_NAME)
	d=$(DIST_DIR)/stage/$(DIST_NAME); \
	install -d $$d/share/paperless-dedupe/dist $$d/share/doc/paperless-dedupe && \
	for f in pl-watch.service compose.yaml; do \
	  sed 's/@VERSION@/$(VERSION)/g' scripts/dist/$$f > $$d/share/paperless-dedupe/dist/$$f || exit 1; \
	done && \
	install -m 755 scripts/dist/pl-watch-start $$d/share/paperless-dedupe/dist/ && \
	install -m 644 README.md docs/PAPERLESS.md $$d/share/doc/paperless-dedupe/ && \
	python3 scripts/dist/glibc.py $(GLIBC_FLOOR) $$d/bin/*
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$(SOURCE_DATE_EPOCH) \
	  -C $(DIST_DIR)/stage -cf - $(DIST_NAME) | gzip -n > $(DIST_TAR).tmp
	mv $(DIST_TAR).tmp $(DIST_TAR)
	rm -rf $(DIST_DIR)/stage
	@echo "make dist: $(DIST_TAR) (docs/PAPERLESS.md, section 8, says how to run it)" >&2

dist-test: dist
	python3 scripts/dist/test.py $(DIST_TAR) $(GLIBC_FLOOR)

# pl-fetch against the real Paperless-NGX 3.0.5 backend in ../shared/paperless/real: loads
# $(DOCS), full sync, changes and deletions through the API, incremental syncs, each output
# checked; then the consume hook (scripts/real-consume-hook-test.sh) tags and notes a duplicate. setup.sh installs its Python packages into PAPERLESS_REAL_STATE (default
# /tmp/pl-real-paperless) the first time, minutes; later runs reuse them.
.PHONY: real-paperless-test
real-paperless-test: $(BIN)/pl-fetch $(BIN)/pl-index $(BIN)/pl-check
	BIN=$(BIN) DOCS=$(DOCS) scripts/real-paperless-test.sh
	BIN=$(BIN) scripts/real-consume-hook-test.sh

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
	@$(MAKE) --no-print-directory WORK=$(WORK)/$@ UNIT=words NGRAM=2 PERMS=$(TRIALS_PERMS) BANDS=6 EDGE_WORDS=0 NUMBERS=0 \
	  MIN_BAND_MATCHES=2 EVIDENCE_BUCKET=0 groups
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
#   make screenshot        docs/report.png, the README's picture, written by the browser test
#                          from the example corpus's groups (rerun it when the page or the
#                          groups change)
#   make real-apply-test   pl-apply against the real Paperless-NGX 3.0.5 (tag, trash, undo),
#                          then owners with two users (scripts/real-owners-test.sh: the
#                          permission lists pl-fetch records, no group and no write across
#                          owners by pl-apply and by pl-watch fired by a workflow's webhook,
#                          about two minutes), then real-report-test;
#                          PAPERLESS_REAL_STATE as for real-paperless-test
#   make real-report-test  pl-report --thumbs against the real Paperless-NGX 3.0.5 in headless
#                          Chromium: the documents given thumbnails (scripts/real-thumbnails.py),
#                          served through --serve and embedded (scripts/real-report-test.sh,
#                          about a minute and a half)
#   make screenshot-thumbs docs/report-thumbs.png, the review page with the pages in view, written
#                          by real-report-test
#   make real-watch-test   pl-watch against the real Paperless-NGX 3.0.5 (a workflow's webhook)
.PHONY: browser-test screenshot real-apply-test real-report-test screenshot-thumbs

browser-test: $(WORK)/groups.ndjson $(WORK)/scores.ndjson $(BIN)/pl-report
	scripts/browser-setup.sh
	cd tests/browser && PL_BIN=$(abspath $(BIN)) GROUPS=$(abspath $(WORK)/groups.ndjson) \
	  DOCS=$(abspath $(WORK)/docs.ndjson) SCORES=$(abspath $(WORK)/scores.ndjson) \
	  node --test report.test.mjs

screenshot:
	PL_SCREENSHOT_DOCS=1 $(MAKE) --no-print-directory browser-test

real-apply-test: $(BIN)/pl-apply $(BIN)/pl-report $(BIN)/pl-index $(BIN)/pl-watch
	BIN=$(BIN) DOCS=$(DOCS) scripts/real-apply-test.sh
	BIN=$(BIN) DOCS=$(DOCS) scripts/real-owners-test.sh
	BIN=$(BIN) DOCS=$(DOCS) scripts/real-report-test.sh

real-report-test: $(BINS)
	BIN=$(BIN) DOCS=$(DOCS) scripts/real-report-test.sh

screenshot-thumbs:
	PL_SCREENSHOT_DOCS=1 $(MAKE) --no-print-directory real-report-test

# pl-watch against the real Paperless-NGX 3.0.5 (docs/PAPERLESS.md, section 7): a workflow with a
# webhook action created through the API, a document edited into a copy of another (Document
# Updated: the backend has no consumer), Paperless's own webhook, the tag and the note checked.
# PAPERLESS_REAL_STATE as for real-paperless-test.
.PHONY: real-watch-test
real-watch-test: $(BIN)/pl-fetch $(BIN)/pl-index $(BIN)/pl-watch
	BIN=$(BIN) scripts/real-watch-test.sh

# pl-spark (scripts/spark, docs/SCALE.md) against `make groups`: byte-identical groups on the
# example corpus and a generated 100k one, on local[2]; installs Java 17 and pyspark itself.
.PHONY: spark-test spark-cluster-test spark-bench
spark-test: $(BINS)
	BIN=$(BIN) scripts/spark/test.sh

# pl-spark on a Spark standalone cluster on 127.0.0.1 (a master and two one-core workers,
# started and stopped by the test) against `make groups`: the example corpus and the OCR fixture.
spark-cluster-test: $(BINS)
	BIN=$(BIN) scripts/spark/cluster_test.sh

# The tables of docs/SCALE.md (the whole run, and each stage's cost): pl-spark on
# local[1], local[2] and a standalone cluster on 127.0.0.1 (a master and two one-core workers)
# against `make groups` in the same run, with each run's peak RSS (SPARK_BENCH_SIZES, default
# 100000; SPARK_BENCH_MASTERS).
spark-bench: $(BINS)
	BIN=$(BIN) scripts/spark/bench.sh

# ---------------------------------------------------------------------------------------------
# Benchmark (issue 6): our stages and pipeline against datasketch, rensa and gaoya on the same
# generated corpus, the exact baseline and recall on the smallest; writes BENCH.md.
#   make bench                            10k documents
#   BENCH_SIZES="10000 100000" make bench  adds 100k (1000000 works too)
#   BENCH_SIZES=real BENCH_DEFAULT_REAL=1 BENCH_SPLICE=1 make bench
#                                         the real-text section alone, default pipeline included
.PHONY: bench

bench:
	scripts/bench/run.sh

# The persistent index (issue 19): pl-check per document and an incremental run after 100 new
# documents against the full pipeline, on INDEX_DOCS (default 100000) generated documents;
# spliced into BENCH.md (section "Persistent index").
.PHONY: bench-index
bench-index: $(BINS)
	BIN=$(BIN) scripts/bench/index.sh

# ---------------------------------------------------------------------------------------------
# docs/QUALITY.md: every configuration on a generated 10k-document corpus and on the real-OCR
# fixtures, against their truth, and issue 14's targets judged; the held-out corpus
# (examples/ocr-holdout/) reported apart; $(WORK)/quality/summary.json.
QUALITY_DOCS ?= 10000
quality: $(BINS)
	python3 scripts/quality.py --docs $(QUALITY_DOCS) --work $(WORK)/quality --bin $(BIN) \
	  --ocr-docs $(OCR_FIXTURE)/docs.ndjson --ocr-truth $(OCR_FIXTURE)/truth.ndjson

# crates/pl-core/src/scorer/policy.json: the match probability's weights, fitted on a generated
# corpus with near-negatives and the real-OCR fixtures examples/ocr, examples/ocr-hard and
# examples/ocr-near (never examples/ocr-holdout), by scripts/fit_policy.py in its own venv (numpy, scipy, pinned).
# docs/VERDICT.md says how (and shows the policy: its table is spliced there); rebuild and rerun
# `make quality` after.
FIT_VENV ?= $(WORK)/fit-venv
.PHONY: fit
fit: $(BINS)
	test -x $(FIT_VENV)/bin/python || python3 -m venv $(FIT_VENV)
	$(FIT_VENV)/bin/pip install -q numpy==2.1.3 scipy==1.14.1
	$(FIT_VENV)/bin/python scripts/fit_policy.py --work $(WORK)/fit --bin $(BIN) \
	  --out crates/pl-core/src/scorer/policy.json

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

# The hard real-OCR fixture (examples/ocr-hard/README.md): the same documents' way to the page,
# laid out so that Tesseract segments them differently (--hard).
OCR_HARD_DOCS ?= 700
OCR_HARD_SEED ?= 23

ocr-hard-corpus: ocr-deps
	$(OCR_VENV)/bin/python scripts/ocr_corpus.py --hard --docs $(OCR_HARD_DOCS) --seed $(OCR_HARD_SEED) \
	  --out-docs examples/ocr-hard/docs.ndjson --out-truth examples/ocr-hard/truth.ndjson --cache $(WORK)/ocr-cache

# The held-out real-OCR corpus (examples/ocr-holdout/README.md): another seed, half the papers
# laid out like ocr-hard's, the rest like ocr's, with near-negatives (household letters, next
# month's statements, editions). Never used to fit or tune; quality reports it apart.
OCR_HOLDOUT_DOCS ?= 500
OCR_HOLDOUT_SEED ?= 41
OCR_JOBS ?= $(shell nproc)

ocr-holdout-corpus: ocr-deps
	$(OCR_VENV)/bin/python scripts/ocr_corpus.py --mixed 0.5 --near-negatives 0.7 --docs $(OCR_HOLDOUT_DOCS) \
	  --seed $(OCR_HOLDOUT_SEED) --jobs $(OCR_JOBS) --out-docs examples/ocr-holdout/docs.ndjson \
	  --out-truth examples/ocr-holdout/truth.ndjson --cache $(WORK)/ocr-cache

# The near-negative real-OCR fixture (examples/ocr-near/README.md): made like the held-out
# corpus, with another seed, for fitting and tuning: the real-OCR near-negatives the fit sees.
OCR_NEAR_DOCS ?= 600
OCR_NEAR_SEED ?= 53

ocr-near-corpus: ocr-deps
	$(OCR_VENV)/bin/python scripts/ocr_corpus.py --mixed 0.5 --near-negatives 0.7 --docs $(OCR_NEAR_DOCS) \
	  --seed $(OCR_NEAR_SEED) --jobs $(OCR_JOBS) --out-docs examples/ocr-near/docs.ndjson \
	  --out-truth examples/ocr-near/truth.ndjson --cache $(WORK)/ocr-cache

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
