"""The server's rules, apart from HTTP: phases and their windows, run limits and quotas, the
hidden-phase rule (:mod:`.hidden`), scoring through
:func:`simeval.kinds.scoring.score_submission` (:mod:`.scoring`), results through the results
store (:mod:`.results`), leaderboards (:mod:`.board_table`) and what the organiser does
(:mod:`.campaigns`, :mod:`.backup`). Nothing here imports FastAPI; the routers call
:class:`.submit.Service` and render its answers.
"""
