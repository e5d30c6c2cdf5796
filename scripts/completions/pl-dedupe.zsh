#compdef pl-dedupe
# zsh completion of pl-dedupe (installed by make install as _pl-dedupe): its targets and variables.
_pl-dedupe() {
  local -a targets vars
  targets=(table groups report eval why shingles clean --help)
  vars=(
    WORK= DOCS= TRUTH= THRESHOLD= UNIT= NGRAM= MIN_WORDS= PERMS= SEED= SCHEME= BANDS=
    EDGE_WORDS= MIN_BAND_MATCHES= MAX_BUCKET= EVIDENCE_BUCKET= NUMBERS= JACCARD_WEIGHT= FUZZY_WEIGHT= FUZZY_SAMPLE= MAX_WORDS=
    SHINGLE_FLAGS= SCORE_FLAGS= CLUSTER_FLAGS= REPORT_FLAGS= SWITCH_SOURCE= A= B=)
  case $PREFIX in
    DOCS=* | TRUTH=* | WORK=*)
      compset -P '*='
      _files
      return ;;
  esac
  compadd -a targets
  compadd -S '' -a vars
}
_pl-dedupe "$@"
