import csv, numpy as np, pickle, os
from pathlib import Path
from simeval.measures.graph import read_edges, RelationGraph, node, feature_matrix
from simeval.train.graph import read_negatives, cross_fitted
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.metrics import average_precision_score as aps
G=Path('/tmp/russe/g0')
e,s=read_edges(G); g=RelationGraph(e,s); neg=read_negatives(G)
cache='/tmp/russe/cf.pkl'
if os.path.exists(cache): pairs,lab,src,raw=pickle.load(open(cache,'rb'))
else:
    pairs,lab,src,raw=cross_fitted(e,neg,s,10,0); pickle.dump((pairs,lab,src,raw),open(cache,'wb'))
tests={}
for f in ['rt-test.csv','ae-test.csv','ae2-test.csv','hj-test.csv']:
    r=list(csv.DictReader(open('/work/shared/data/russe/'+f)))
    P=[(x['word1'],x['word2']) for x in r]; y=np.array([float(x['sim']) for x in r])
    tests[f]=(P,y,g.pair_features(P))
from scipy.stats import spearmanr
def run(names, mask, tag):
    X=feature_matrix(raw,names)[mask]; sc=StandardScaler().fit(X)
    clf=LogisticRegression(class_weight='balanced',max_iter=5000).fit(sc.transform(X),lab[mask])
    out=[]
    for f,(P,y,F) in tests.items():
        p=clf.decision_function(sc.transform(feature_matrix(F,names)))
        out.append(round(spearmanr(p,y)[0] if 'hj' in f else aps(y,p),4))
    print(tag,out)
base=['cn','aa','ra','jaccard','walk2','walk3']
per=[f'ra_{x}' for x in s]+[f'cn_{x}' for x in s]
allm=np.ones(len(lab),bool)
ina=(raw['deg_a']>0)&(raw['deg_b']>0)
run(base,allm,'base all')
run(base+per,allm,'base+per all')
run(base+per,ina|(lab==1),'base+per neg-in-graph')
run(base+per+['deg_a','deg_b'],ina|(lab==1),'base+per+deg neg-in-graph')
for f,(P,y,F) in tests.items():
    w=F['walk2']+F['walk3']; print(f, 'walk', round(spearmanr(w,y)[0] if 'hj' in f else aps(y,w),4))
