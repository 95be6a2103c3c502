"""The figures of a folder of real vugraph LIN files, for BENCHMARKS.md: per file how many
rooms replayed legally, how many agreed with `rs`, the match score, and every refusal or
disagreement with its reason.

    .venv/bin/python -m vugraph.figures ../shared/lin
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from .lin import read_lin_bytes
from .replay import LENIENT, MatchOutcome, replay_match


@dataclass(frozen=True)
class FileFigures:
    """One file's figures. ``rooms``: the rooms the file has of its boards (stub boards
    outside `vg`'s range left out); ``replayed``: legal and finished; ``agreed``: the `rs`
    entry says the same result; ``unconfirmed``: replayed, but `rs` gives nothing to compare;
    ``scored``: boards both rooms completed (IMPed); ``notes``: each refused room's reason."""

    name: str
    boards: int
    rooms: int
    replayed: int
    agreed: int
    unconfirmed: int
    scored: int
    score: str
    notes: tuple[str, ...]


def figures(name: str, outcome: MatchOutcome) -> FileFigures:
    rooms = outcome.rooms
    present = [
        room for room in rooms if room.problem is None or room.problem.kind != "missing_room"
    ]
    notes = [room.problem.message for room in rooms if room.problem is not None]
    if outcome.stubs_left_out:
        boards = ", ".join(map(str, outcome.stubs_left_out))
        notes.append(f"Stub boards outside vg's range, left out: {boards}.")
    if outcome.absent:
        notes.append(f"Boards of vg's range not in the file: {_ranges(outcome.absent)}.")
    teams, score = outcome.match.teams, outcome.score
    return FileFigures(
        name=name,
        boards=len(outcome.boards),
        rooms=len(present),
        replayed=sum(room.replayed for room in rooms),
        agreed=sum(room.agrees is True for room in rooms),
        unconfirmed=sum(room.replayed and room.agrees is None for room in rooms),
        scored=len(outcome.scored),
        score=f"{teams[0]} {score[0]} – {score[1]} {teams[1]}",
        notes=tuple(notes),
    )


def _ranges(numbers: tuple[int, ...]) -> str:
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def folder_figures(folder: Path) -> list[FileFigures]:
    return [
        figures(path.name, replay_match(read_lin_bytes(path.read_bytes()), policy=LENIENT))
        for path in sorted(folder.glob("*.lin"))
    ]


def table(rows: list[FileFigures]) -> str:
    """A Markdown table of the figures, then the notes of each file, then the totals."""
    lines = [
        "| file | boards | rooms | replayed legally | agreed with rs | rs unconfirmed "
        "| boards IMPed | match score |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.name} | {r.boards} | {r.rooms} | {r.replayed} | {r.agreed} | "
            f"{r.unconfirmed} | {r.scored} | {r.score} |"
        )
    total = [sum(getattr(r, f) for r in rows) for f in ("boards", "rooms", "replayed", "agreed")]
    unconfirmed, scored = sum(r.unconfirmed for r in rows), sum(r.scored for r in rows)
    lines.append(
        f"| **all {len(rows)}** | {total[0]} | {total[1]} | {total[2]} | {total[3]} | "
        f"{unconfirmed} | {scored} | |"
    )
    lines.append("")
    for r in rows:
        for note in r.notes:
            lines.append(f"- {r.name}: {note}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path("../shared/lin")
    print(table(folder_figures(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
