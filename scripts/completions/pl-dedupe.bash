# bash completion of pl-dedupe (installed by make install): its targets and variables.
_pl_dedupe() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local words="table groups report eval why shingles clean --help WORK= DOCS= TRUTH= THRESHOLD= UNIT= NGRAM=
    MIN_WORDS= PERMS= SEED= SCHEME= BANDS= EDGE_WORDS= MIN_BAND_MATCHES= MAX_BUCKET= EVIDENCE_BUCKET= NUMBERS= JACCARD_WEIGHT=
    FUZZY_WEIGHT= FUZZY_SAMPLE= MAX_WORDS= SHINGLE_FLAGS= SCORE_FLAGS= CLUSTER_FLAGS= REPORT_FLAGS=
    SWITCH_SOURCE= A= B="
  case "$cur" in
    DOCS=* | TRUTH=* | WORK=*)
      local var=${cur%%=*}
      COMPREPLY=($(compgen -f -P "$var=" -- "${cur#*=}"))
      return ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  [[ ${COMPREPLY[0]-} == *= ]] && compopt -o nospace 2>/dev/null
}
complete -F _pl_dedupe pl-dedupe
