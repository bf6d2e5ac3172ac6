"""HTTP only: each router parses a request, calls the service, renders a view and maps errors
to status codes. :mod:`.web` holds what every route shares (the signed-in team, rate limits,
CSRF, an HTML response); :mod:`.api` is the JSON API, :mod:`.pages` the web pages,
:mod:`.errors` the exception handlers. A new page is one route here and one template in
:mod:`simeval.serve.views.pages`.
"""
