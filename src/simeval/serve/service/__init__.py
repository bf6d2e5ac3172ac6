"""The server's rules, apart from HTTP: phases and their windows, run limits and quotas, the
hidden-phase rule (:mod:`.hidden`), scoring through
:func:`simeval.kinds.scoring.score_submission` (:mod:`.scoring`), results through the results
store (:mod:`.results`), leaderboards (:mod:`.board_table`, kept by :mod:`.board_cache`), the
public/private split (:mod:`.split_rule`, set later by :mod:`.split_setting`) and what the
organiser does (:mod:`.campaigns`, :mod:`.export`, :mod:`.backup`). Nothing here imports FastAPI;
the routers call :class:`.submit.Service` and render its answers.
"""
