"""Building benchmark datasets (the ``simeval build`` commands): negatives, STS-style samples,
annotation campaigns and their agreement, the BUCC preparation; each writes a folder the
registry loads. (Named ``datasets``, not ``build``: tools and people read ``build/`` as build
output.)"""
