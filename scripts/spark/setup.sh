#!/usr/bin/env bash
# Sets up what pl-spark needs, once: Java 17 (openjdk-17-jre-headless, from the Debian
# packages, when no `java` is on PATH) and a Python venv with the pinned pyspark
# (requirements.txt) in $PL_SPARK_VENV (default: work/spark-venv under the repository).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${PL_SPARK_VENV:-$here/../../work/spark-venv}
if ! command -v java > /dev/null; then
  echo "pl-spark setup: installing openjdk-17-jre-headless" >&2
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >&2
fi
if ! "$venv/bin/python" -c 'import pyspark' 2> /dev/null \
   || ! cmp -s "$here/requirements.txt" "$venv/requirements.txt"; then
  echo "pl-spark setup: pyspark into $venv (a 300 MB download, the first time)" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt" >&2
  cp "$here/requirements.txt" "$venv/requirements.txt"
fi
