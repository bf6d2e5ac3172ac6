import csv, numpy as np, sys
from pathlib import Path
from scipy.stats import spearmanr
from simeval.metrics.classification import average_precision_trapezoid as apt
from simeval.measures.graph import read_edges, RelationGraph
from simeval.measures import create_measure
e,s=read_edges(Path('/tmp/russe/g1')); g=RelationGraph(e,s)
ft=create_measure('vectors:path=/tmp/russe/ru-fasttext,oov=backoff,fallback=zero')
sv=create_measure('vectors:path=/tmp/russe/ru-svd,oov=backoff,fallback=skip')
tests={}; allP=[]
for f in ['hj-test.csv','rt-test.csv','ae-test.csv','ae2-test.csv']:
    r=list(csv.DictReader(open('/work/shared/data/russe/'+f)))
    P=[(x['word1'],x['word2']) for x in r]; y=np.array([float(x['sim']) for x in r]); allP+=P
    tests[f]=[P,y]
W={w for p in allP for w in p}; ft.prepare(W,[]); sv.prepare(W,[])
for f,(P,y) in tests.items():
    F=g.pair_features(P)
    c=np.nan_to_num(np.asarray(ft.score_words(P),float),nan=-1)
    v=np.asarray(sv.score_words(P),float)
    tests[f]+= [F['walk2']+F['walk3'], c, v]
def ev(fn,tag):
    out=[]
    for f,(P,y,w,c,v) in tests.items():
        sc=fn(w,c,v)
        out.append(round(spearmanr(sc,y)[0] if 'hj' in f else apt(y,sc),4))
    print(tag,out,flush=True)
sq=lambda w: w/(1+w)
print('svd coverage',{f:round(float(np.mean(~np.isnan(t[4]))),3) for f,t in tests.items()})
ev(lambda w,c,v: np.where(w>0,2+sq(w),c),'walk>ft')
ev(lambda w,c,v: np.nan_to_num(v,nan=0),'svd zero')
ev(lambda w,c,v: np.where(np.isnan(v),c,(c+v)/2),'ft+svd mean')
for a in (0.3,0.5,0.7):
    ev(lambda w,c,v: np.where(w>0,2+sq(w),np.where(np.isnan(v),c,a*c+(1-a)*v)),f'walk>{a}ft+svd')
for f,(P,y,w,c,v) in tests.items():
    ia=g.ids(a for a,_ in P); ib=g.ids(b for _,b in P); tests[f].append((ia>=0)&(ib>=0))
def ev2(fn,tag):
    out=[]
    for f,(P,y,w,c,v,ok) in tests.items():
        sc=fn(w,c,v,ok)
        out.append(round(spearmanr(sc,y)[0] if 'hj' in f else apt(y,sc),4))
    print(tag,out,flush=True)
for lam in (0.05,0.1,0.25,0.5):
    ev2(lambda w,c,v,ok: np.where(w>0,2+sq(w),0.25*(1+c)-lam*ok),f'walk>ft - {lam}*closed')
