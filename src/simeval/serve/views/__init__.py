"""What a participant is shown: the HTML templates of the pages (:mod:`.pages`) and the JSON
view of a submission (:mod:`.submissions`, scores withheld while a phase is hidden). Views are
functions of rows and tables; they read no request and change nothing.
"""
