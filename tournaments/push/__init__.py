"""Push: messages to the connected devices, through the Channels layer, after a commit.

The plumbing only, below the services: a group's name, sending a message to groups
(from a socket server's pool thread or from anywhere else), and the loop a pool thread
hands its sends to. What a message says, and who may read what of it, is decided by the
services that send it (`services.announcements`) and by the sockets that forward it
(`sockets.consumers`); nothing here reads the database or knows a format.
"""
