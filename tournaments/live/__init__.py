"""What the live pages, the API and the exports share, and the clock's tick that keeps it
warm.

- `cache`: values built once per live version (`selectors.live_version`), in the shared
  cache with a per-process memo in front, one build per version per process;
- `cached`: the standings, results grid, seating, travellers, the API's standings JSON
  (shaped by `schemas`) and the export files, each built through `cache`; `warm` builds
  them after the clock moved a tournament;
- `clock`: `tick`, the one call every clock driver makes: advance, warm, analyse.

Below the views and the API, which both read from here: it imports selectors, services,
exports and models, never `tournaments.views` or `tournaments.api` (import-linter).
"""
