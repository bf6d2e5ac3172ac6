set -x
cd /work/wt-russe
export SIMEVAL_DATA_DIR=/work/shared/data HF_HUB_OFFLINE=1 PYTHONPATH=/work/wt-russe/src
S="nice -n 10 /work/main/.venv/bin/simeval"
R=/work/shared/data/russe
REL="--relations $R/rt.csv --relations $R/ae-train.csv --relations $R/ae2-train.csv --relations $R/hj-train.csv"
rm -rf /tmp/russe/ru-graph /tmp/russe/ru-graph-learned /tmp/russe/results
time $S train graph $REL --exclude russe --out /tmp/russe/ru-graph
time $S train graph $REL --exclude russe --learn --vectors /tmp/russe/ru-fasttext --out /tmp/russe/ru-graph-learned
for m in graph:path=/tmp/russe/ru-graph,score=walk graph:path=/tmp/russe/ru-graph,score=adamic_adar graph:path=/tmp/russe/ru-graph,score=walk,fallback=vectors,vectors=/tmp/russe/ru-fasttext graph:path=/tmp/russe/ru-graph-learned,score=learned vectors:path=/tmp/russe/ru-fasttext,oov=backoff,fallback=zero; do
  time $S evaluate $m -s russe --results /tmp/russe/results
done
$S results /tmp/russe/results
