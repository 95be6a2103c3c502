"""Play at the system's tables (RULES 9): the server side of online play.

    seats       who sits where at a table: `seat_of`, `table_seats`, `swap_seats`
    services    `board_view` (what one person may see of a table's board) and `act`
                (store one call, card, claim or answer; store the result when it ends)
    views       the JSON shapes of a board as one seat, an organiser or the public sees it
    events      after a commit: `views_stored`, `round_closed` to the Channels groups
    records     the auction and play of every table, for the board page and exports
    replays     this process's replayed board per table, brought up to date from the rows

The rules themselves are the pure package `play/`; the board at a table is always its
stored actions replayed (`play.BoardState.replay`; `replays` keeps each process's last
replay and checks it against the stored rows before use), so a reconnecting device, a
second device and a restarted server all see the same state.
"""
