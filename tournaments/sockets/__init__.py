"""The live table server (RULES 9, docs/PLAY_PROTOCOL.md): a web layer beside the pages
(`views`) and the API (`api`), speaking WebSocket instead of HTTP.

    routing     the socket URLs (mounted by config/asgi.py)
    auth        who is at the other end: session (from the site's pages) or API token,
                the whole Origin, keys in URLs refused; the credential re-checked
    consumers   one socket per seat and board: the snapshot, the actions, and the
                table's and the bell's messages forwarded to the one viewer
    pool        the threads (each with its database connection) the sockets' calls run in

It stays thin: what a person may see is `visibility`'s rule and `selectors.board_views`'
drawing; playing is `services.table_play` and `services.seats`; what the sockets are told
after a commit is `services.announcements`, sent by `push`. The rules of play are the
pure package `play/`: the board at a table is always its stored actions replayed
(`selectors.replays` keeps each process's last replay and checks it against the stored
rows before use), so a reconnecting device, a second device and a restarted server all
see the same state.
"""
