"""Where the real files of other programs are: Compscore3's USEBIO events and BBO's
vugraph LIN matches. They are not ours to commit: the steering team places them beside the
repository (`../shared/usebio/`, `../shared/lin/`), or a run says where with
USEBIO_SAMPLES_DIR / LIN_SAMPLES_DIR (a relative path is read from the repository).
Importable without Django (the pure cores' tests use it)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
USEBIO_SAMPLES = REPO / os.environ.get("USEBIO_SAMPLES_DIR", "../shared/usebio")
LIN_SAMPLES = REPO / os.environ.get("LIN_SAMPLES_DIR", "../shared/lin")
