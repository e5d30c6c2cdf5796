# fish completion of pl-dedupe (installed by make install): its targets and variables.
complete -c pl-dedupe -f -a 'table groups report eval why shingles clean' -d 'target'
complete -c pl-dedupe -f -a 'WORK= DOCS= TRUTH= THRESHOLD= UNIT= NGRAM= MIN_WORDS= PERMS= SEED= SCHEME= BANDS= EDGE_WORDS= MIN_BAND_MATCHES= MAX_BUCKET= EVIDENCE_BUCKET= NUMBERS= JACCARD_WEIGHT= FUZZY_WEIGHT= FUZZY_SAMPLE= MAX_WORDS= SHINGLE_FLAGS= SCORE_FLAGS= CLUSTER_FLAGS= REPORT_FLAGS= SWITCH_SOURCE= A= B=' -d 'variable'
complete -c pl-dedupe -s h -l help -d 'usage'
