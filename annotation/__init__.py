"""The application's rules between the pages and the storage: what a campaign, a judgment, a
queue and an import may be, checked before anything is written.

The rooms, each importing only the rooms after it: ``imports/`` → ``results/`` → ``judging/``
→ ``tasks/`` → ``campaign/`` → ``queue/``.
"""
