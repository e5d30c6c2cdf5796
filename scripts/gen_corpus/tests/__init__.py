"""Tests of the corpus generator. From the repository root:

    python3 -m unittest discover -s scripts/gen_corpus -t scripts
"""
