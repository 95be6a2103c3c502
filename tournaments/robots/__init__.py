"""Robots at the system's tables (issue 17): programs that sit in a player's seat and bid
and play through the same WebSocket protocol as a person (docs/PLAY_PROTOCOL.md).

    client.play_seat(job, …)       one seat of one table, its boards in order (no database)
    runner.drive(…)                every robot-driven seat of the open rounds, round after
                                   round; `manage.py play_robots` runs it

Which seats robots take: every seat of an open round of the chosen online tournaments
whose player has not logged in since the robots started. A player who logs in takes
their seat back: the robot leaves at once (the runner sees the login within a second),
and a robot that sees an action stored from its seat that it did not send (the
player acting from another device) gives the seat up too. The robot's choices are
`simulation.robot`'s: it knows all four hands (it is a robot, and says so).
"""
