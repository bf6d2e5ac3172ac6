import csv, numpy as np, time
from pathlib import Path
from scipy import sparse
from sklearn.utils.extmath import randomized_svd
from scipy.stats import spearmanr, rankdata
from simeval.metrics.classification import average_precision_trapezoid as apt
from simeval.measures.graph import read_edges, RelationGraph
from simeval.measures import create_measure
e,s=read_edges(Path('/tmp/russe/g1')); g=RelationGraph(e,s)
A=g.adj; n=A.shape[0]; d=g.degree
ft=create_measure('vectors:path=/tmp/russe/ru-fasttext,oov=backoff,fallback=zero')
tests={}
allP=[]
for f in ['hj-test.csv','rt-test.csv','ae-test.csv','ae2-test.csv']:
    r=list(csv.DictReader(open('/work/shared/data/russe/'+f)))
    P=[(x['word1'],x['word2']) for x in r]; y=np.array([float(x['sim']) for x in r]); allP+=P
    tests[f]=[P,y]
ft.prepare({w for p in allP for w in p},[])
Dm=sparse.diags(1/np.sqrt(d+1)); M=(Dm@(A+sparse.identity(n))@Dm).tocsr()
U,S,Vt=randomized_svd(M,128,n_iter=4,random_state=0); E=U*S; E/=np.maximum(np.linalg.norm(E,axis=1,keepdims=True),1e-12)
for f,(P,y) in tests.items():
    F=g.pair_features(P); ia=g.ids(a for a,_ in P); ib=g.ids(b for _,b in P); ok=(ia>=0)&(ib>=0)
    emb=np.zeros(len(P)); emb[ok]=np.einsum('ij,ij->i',E[ia[ok]],E[ib[ok]])
    c=np.nan_to_num(np.asarray(ft.score_words(P),float),nan=-1)
    tests[f]+= [F['walk2']+F['walk3'], emb, c, ok]
def ev(fn,tag):
    out=[]
    for f,(P,y,w,emb,c,ok) in tests.items():
        sc=fn(w,emb,c,ok)
        out.append(round(spearmanr(sc,y)[0] if 'hj' in f else apt(y,sc),4))
    print(tag,out,flush=True)
sq=lambda w: w/(1+w)
ev(lambda w,e,c,ok: np.where(w>0,0.5+0.5*sq(w),0.25*(1+c)),'walk>ft')
ev(lambda w,e,c,ok: c,'ft')
ev(lambda w,e,c,ok: e,'emb')
ev(lambda w,e,c,ok: np.where(ok,(e+c)/2,c/2-0.5),'emb+ft (ok) else ft')
ev(lambda w,e,c,ok: np.where(w>0,2+sq(w),np.where(ok,(e+c)/2,c/2-0.5)),'walk > emb+ft > ft')
ev(lambda w,e,c,ok: np.where(w>0,2+sq(w),np.where(ok,e,c/2-0.5)),'walk > emb > ft')
ev(lambda w,e,c,ok: np.where(w>0,2+sq(w)+c,np.where(ok,(e+c)/2,c/2-0.5)),'walk+c > emb+ft > ft')
ev(lambda w,e,c,ok: np.where(w>0,2+sq(w)+c,c),'walk+c > ft')
