"""The Blue Chip table-manager gateway (SPEC 14): a TCP server beside the ASGI server that
gives reserved seats of online tables to programs speaking the protocol (`gateway`). A
web layer like the socket server: the protocol is the `bluechip` core's, the seat's play
goes through `services.table_play` and `services.programs`."""
