"""A game record as one self-contained HTML page that steps through it move by move.

:func:`record_to_html` replays a record through the engine (verified,
:func:`mcr_env.engine.records.replay`) and writes a single HTML file: no network access, no
external script, style or font; tiles are inline SVG drawn by the page's own script. The page
shows, for every step: the hand, prevalent wind, dealer, phase, the tiles left in the wall, the
tile in play, the step's decisions, each seat's wind, player, flowers, concealed hand (drawn
tile apart), melds and discards (rows of six, claimed discards marked), and at the end of each
hand the fan table, total, settlement and running scores. Buttons and the arrow keys step
(Left/Right one step, Home/End first/last, PageUp/PageDown one hand).

Views (docs/rules.md §10, information rule):

* ``seat=None`` (default): the page holds the full game; a selector shows all hands or one
  seat's view. A seat view hides the other seats' concealed tiles and concealed-kong tiles,
  shows only the viewer's own "to act" mark besides the seat on turn, and lists only the
  decisions that seat could know (:func:`mcr_env.play.frames.public_events`).
* ``seat=s``: the page is built from seat ``s``'s view only (:meth:`GameState.seat_view`):
  what seat ``s`` could not see is not in the file at all.

The steps are those of an engine that asks every seat in every claim round and robbing window
(a record made with ``claim_round="options"`` is replayed with ``claim_round="all"``), so the
frames a seat view steps through do not depend on who could claim.

Match records: the engine deals the next hand in the step that ends a hand, so the hand-end
frame of hands 1-15 shows the table as it was when the last decision was asked, with the
result; the next frame is the deal of the next hand.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from mcr_env._checks import check_int
from mcr_env.engine.records import replay
from mcr_env.play.frames import hand_result_rows, public_events, table_frame

__all__ = ["main", "record_frames", "record_to_html", "write_html"]

VIEWS = ("all", "0", "1", "2", "3")


def _check_seat(seat) -> int | None:
    if seat is None:
        return None
    return check_int(seat, "seat", 0, 3, what="an int 0..3 or None")


def record_frames(record: dict, seat: int | None = None) -> list[dict[str, Any]]:
    """The frames of a record: the deal, then one per engine step (plus, in a match, the deal
    of each next hand).

    Each frame is :func:`~mcr_env.play.frames.table_frame` (full, or seat ``seat``'s view) plus
    ``step`` (engine step index, -1 at a deal), ``events`` (``{view: [[seat, text], ...]}`` for
    the views the page offers: ``"all"`` and ``"0"``..``"3"``, or only ``str(seat)``),
    ``acting_by_view`` (the same views: seats shown as acting) and, at a hand end, ``result``
    (:func:`~mcr_env.play.frames.hand_result_rows` plus ``hand``, ``player_at_seat`` and
    ``scores`` by player after the hand).

    Raises:
        RecordError / ReplayError: the record is malformed or does not replay.
        ValueError: bad ``seat``.
    """
    seat = _check_seat(seat)
    views = [str(seat)] if seat is not None else list(VIEWS)
    hands = record.get("hands", []) if isinstance(record, dict) else []
    frames: list[dict] = []
    prev: dict[str, Any] = {}

    def snapshot(eng):
        return {"state": eng.state.copy(), "to_act": eng.to_act[0].copy()}

    def frame(state, to_act, step, events):
        f = table_frame(state, 0, seat, to_act)
        f["step"] = step
        f["events"] = events
        f["acting_by_view"] = {
            v: table_frame(state, 0, None if v == "all" else int(v), to_act)["acting"]
            if seat is None
            else f["acting"]
            for v in views
        }
        return f

    def on_step(eng, step, decisions):
        if step < 0:
            frames.append(frame(eng.state, eng.to_act[0], -1, {v: [] for v in views}))
            prev.update(snapshot(eng))
            return
        before = prev["state"]
        over = bool(eng.hand_over[0])
        res = eng.last_hand_result[0] if over else None
        winner = int(res.winner) if res is not None else -1
        melds_after = eng.state.n_melds[0] if not over or eng.terminated[0] else before.n_melds[0]
        events = {
            v: public_events(
                decisions,
                int(before.phase[0]),
                int(before.current_seat[0]),
                before.n_melds[0],
                melds_after,
                winner,
                None if v == "all" else int(v),
            )
            for v in views
        }
        if over and not eng.terminated[0]:  # match: the next hand is already dealt
            f = frame(before, prev["to_act"], step, events)
            f["phase"] = "OVER"
            f["acting"] = []
            f["acting_by_view"] = {v: [] for v in views}
        else:
            f = frame(eng.state, eng.to_act[0], step, events)
        if over:
            h = int(res.hand_number)
            rows = hand_result_rows(hands[h]["result"])
            rows["hand"] = h
            rows["player_at_seat"] = [int(p) for p in res.player_at_seat]
            rows["scores"] = [int(x) for x in eng.state.match_scores[0]]
            f["result"] = rows
        frames.append(f)
        if over and not eng.terminated[0]:
            frames.append(frame(eng.state, eng.to_act[0], step, {v: [] for v in views}))
        prev.update(snapshot(eng))

    # every seat asked in every claim round (docs/rules.md §10): which rounds took place, in a
    # record made with the skipping rounds, would reveal who could claim
    replay(record, on_step=on_step, claim_round="all")
    return frames


def record_to_html(record: dict, seat: int | None = None, title: str | None = None) -> str:
    """The self-contained HTML page of a record (module docstring).

    Args:
        record: a game record dict (:mod:`mcr_env.engine.records`).
        seat: None (full game, view selector) or 0..3 (only that seat's view in the file).
        title: page title (default: from the record's origin).

    Raises:
        RecordError / ReplayError: the record is malformed or does not replay.
        ValueError: bad ``seat``.
    """
    frames = record_frames(record, seat)
    o = record.get("origin", {})
    if title is None:
        title = f"MCR replay: seed {o.get('seed')} game {o.get('game')} episode {o.get('episode')}"
    data = {
        "title": title,
        "views": [str(seat)] if seat is not None else list(VIEWS),
        "config": record["config"],
        "final_scores": record["final_scores"],
        "table_points": record["table_points"],
        "frames": frames,
    }
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return (
        _TEMPLATE.replace("__TITLE__", html.escape(title))
        .replace("__CSS__", _CSS)
        .replace("__JS__", _JS)
        .replace("__DATA__", blob)
    )


def write_html(path: str | Path, record: dict, seat: int | None = None) -> Path:
    """Write :func:`record_to_html` of ``record`` to ``path`` (UTF-8); returns the path."""
    path = Path(path)
    text = record_to_html(record, seat)
    if path.parent != Path():
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run(argv=None) -> Path:
    """``mcr-view RECORDS.jsonl [--index i] [--seat s] [--out page.html]``: write record i of
    a JSONL file of game records as an HTML page (default ``<records>-<i>.html``); returns the
    path written.

    Raises:
        UsageError: bad arguments, unreadable file, malformed or non-replaying record.
    """
    from mcr_env.engine.records import RecordError, ReplayError, read_records
    from mcr_env.eval.cli import OneLineParser, UsageError

    p = OneLineParser(
        prog="mcr-view",
        description="Write record i of a JSONL file of game records as one self-contained HTML "
        "page stepping through it move by move (default <records>-<i>.html).",
    )
    p.add_argument("path", help="JSONL file of game records (scripts/record.py)")
    p.add_argument("--index", type=int, default=0, help="record to show (0-based)")
    p.add_argument(
        "--seat", type=int, default=None, choices=range(4), help="write only this seat's view"
    )
    p.add_argument("--out", default=None, help="output HTML file")
    args = p.parse_args(argv)
    try:
        records = read_records(args.path)
    except FileNotFoundError:
        raise UsageError(f"no such file: {args.path}") from None
    except RecordError as e:
        raise UsageError(str(e)) from None
    if not records:
        raise UsageError(f"{args.path} holds no records")
    if not 0 <= args.index < len(records):
        raise UsageError(f"--index {args.index} out of range 0..{len(records) - 1}")
    out = args.out or str(Path(args.path).with_suffix("")) + f"-{args.index}.html"
    try:
        path = write_html(out, records[args.index], args.seat)
    except (RecordError, ReplayError) as e:
        raise UsageError(f"record {args.index}: {e}") from None
    except OSError as e:  # a file where a folder should be, no rights, ...
        raise UsageError(f"--out {out!r}: cannot write the page ({e})") from None
    print(f"wrote {path} ({path.stat().st_size} bytes)")
    return path


def main(argv=None) -> int:
    """Console entry point ``mcr-view``: 0, or 2 after one ``mcr-view: error: ...`` line."""
    from mcr_env.eval.cli import cli_main

    return cli_main("mcr-view", run, argv)


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>__CSS__</style></head>
<body>
<header>
  <h1 id="title">__TITLE__</h1>
  <div id="controls">
    <button id="first" title="first step (Home)">|&lt;</button>
    <button id="prevhand" title="previous hand (PageUp)">&lt;&lt;</button>
    <button id="prev" title="previous step (Left)">&lt;</button>
    <span id="counter"></span>
    <button id="next" title="next step (Right)">&gt;</button>
    <button id="nexthand" title="next hand (PageDown)">&gt;&gt;</button>
    <button id="last" title="last step (End)">&gt;|</button>
    <input id="slider" type="range" min="0" value="0" aria-label="step">
    <label>view <select id="view"></select></label>
  </div>
</header>
<section id="info"></section>
<section id="events"></section>
<main id="table"></main>
<section id="result"></section>
<script id="data" type="application/json">__DATA__</script>
<script>__JS__</script>
</body></html>
"""

_CSS = """
body { font-family: sans-serif; margin: 12px; background: #1f5f3a; color: #f4f4f4; }
header h1 { font-size: 18px; margin: 0 0 6px 0; }
button { font-size: 16px; min-width: 34px; }
#controls { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
#slider { width: 260px; }
#info, #events { margin: 8px 0; font-size: 15px; }
#events .ev { display: inline-block; margin-right: 14px; background: #174a2d; padding: 2px 6px;
  border-radius: 4px; }
#table { display: grid; grid-template-columns: repeat(2, minmax(380px, 1fr)); gap: 10px; }
.seat { background: #174a2d; border-radius: 8px; padding: 8px; border: 2px solid transparent; }
.seat.acting { border-color: #ffd34d; }
.seat h2 { font-size: 15px; margin: 0 0 6px 0; }
.row { margin: 4px 0; display: flex; flex-wrap: wrap; align-items: flex-start; gap: 2px; }
.row .lbl { width: 70px; font-size: 12px; color: #cfe; }
.discards { display: grid; grid-template-columns: repeat(6, 30px); gap: 2px; }
.meld { margin-right: 10px; display: inline-flex; gap: 1px; align-items: flex-end; }
.meld .src { font-size: 11px; color: #cfe; margin-left: 3px; }
.drawn { margin-left: 10px; }
.tile { display: inline-block; line-height: 0; }
.tile.claimed { opacity: 0.35; }
.tile.claimed-mark svg rect.face { stroke: #ffd34d; stroke-width: 2.5; }
#result table { border-collapse: collapse; margin: 6px 0; }
#result td, #result th { border: 1px solid #8fb; padding: 2px 8px; }
#result { background: #174a2d; padding: 8px; border-radius: 8px; margin-top: 10px; }
#result:empty { display: none; }
"""

_JS = r"""
"use strict";
const DATA = JSON.parse(document.getElementById("data").textContent);
const FR = DATA.frames;
const WINDS = ["East", "South", "West", "North"];
let idx = 0;
let view = DATA.views[0];
const SUIT = {W: ["m", "#c0392b"], T: ["s", "#1e8449"], B: ["p", "#1f4e9c"]};
const HONOR = {F1: "E", F2: "S", F3: "W", F4: "N", J1: "C", J2: "F", J3: "P"};
const HONOR_COLOR = {J1: "#c0392b", J2: "#1e8449", J3: "#1f4e9c"};

function tileSVG(code, cls) {
  // code: Botzone code, or null for a face-down tile
  const w = 28, h = 38;
  let body;
  if (code === null) {
    body = `<rect class="face" x="1" y="1" width="${w - 2}" height="${h - 2}" rx="4"
      fill="#2e86c1" stroke="#0b3d5c"/>`;
  } else {
    let big, small = "", color = "#222";
    const s = code[0];
    if (SUIT[s]) { big = code.slice(1); small = SUIT[s][0]; color = SUIT[s][1]; }
    else if (s === "H") { big = "\u273F"; small = code.slice(1); color = "#b9770e"; }
    else { big = HONOR[code]; color = HONOR_COLOR[code] || "#222"; }
    body = `<rect class="face" x="1" y="1" width="${w - 2}" height="${h - 2}" rx="4"
      fill="#fdfbf2" stroke="#555"/>
      <text x="${w / 2}" y="22" font-size="17" font-weight="bold" text-anchor="middle"
      fill="${color}" font-family="sans-serif">${big}</text>
      <text x="${w / 2}" y="34" font-size="10" text-anchor="middle" fill="${color}"
      font-family="sans-serif">${small}</text>`;
  }
  const t = code === null ? "hidden" : code;
  return `<span class="tile ${cls || ""}" data-code="${t}" title="${t}">` +
    `<svg width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg></span>`;
}

function seen(f, s) {
  // what the current view may show of seat s (a seat view hides others' concealed tiles)
  const st = f.seats[s];
  if (view === "all" || Number(view) === s) return st;
  const melds = st.melds.map(m => m.kind === "AnGang" ? Object.assign({}, m,
    {tiles: [null, null, null, null]}) : m);
  return Object.assign({}, st, {hand: null, drawn: null, melds: melds});
}

function seatHTML(f, s) {
  const st = seen(f, s);
  const acting = (f.acting_by_view[view] || []).includes(s);
  let head = `Seat ${s} \u00b7 ${WINDS[st.wind]}` + (s === f.dealer ? " (dealer)" : "") +
    ` \u00b7 player ${st.player}`;
  let hand;
  if (st.hand === null) {
    hand = Array(st.concealed).fill(null).map(c => tileSVG(c)).join("");
  } else {
    hand = st.hand.map(c => tileSVG(c)).join("");
    if (st.drawn) hand += `<span class="drawn">${tileSVG(st.drawn, "drawn-tile")}</span>`;
  }
  const melds = st.melds.map(m => `<span class="meld" data-kind="${m.kind}">` +
    m.tiles.map((c, i) => tileSVG(c, (m.claimed !== null && c === m.claimed &&
      i === m.tiles.indexOf(m.claimed)) ? "claimed-mark" : "")).join("") +
    `<span class="src">${m.kind}${m.from >= 0 ? " \u2190 seat " + m.from : ""}</span></span>`
  ).join("");
  const disc = st.discards.map(([c, cl]) => tileSVG(c, cl ? "claimed" : "")).join("");
  const flowers = st.flowers.map(c => tileSVG(c)).join("");
  return `<div class="seat${acting ? " acting" : ""}" data-seat="${s}">
    <h2>${acting ? "\u25B6 " : ""}${head}</h2>
    <div class="row hand" data-n="${st.concealed}"><span class="lbl">hand</span>${hand}</div>
    <div class="row melds"><span class="lbl">melds</span>${melds}</div>
    <div class="row"><span class="lbl">discards</span>
      <div class="discards" data-n="${st.discards.length}">${disc}</div></div>
    <div class="row flowers"><span class="lbl">flowers</span>${flowers}</div>
  </div>`;
}

function resultHTML(f) {
  const r = f.result;
  if (!r) return "";
  const rows = r.fans.map(([n, p, c, sub]) =>
    `<tr><td>${n}</td><td>${p}</td><td>${c}</td><td>${sub}</td></tr>`).join("");
  const pay = r.settlement.map((x, s) =>
    `<td>seat ${s} (player ${r.player_at_seat[s]}): ${x > 0 ? "+" : ""}${x}</td>`).join("");
  let html = `<h2>Hand ${r.hand + 1}: ${r.headline}</h2>`;
  if (r.fans.length) {
    html += `<table class="fans"><tr><th>fan</th><th>points</th><th>count</th><th>sum</th></tr>
      ${rows}<tr><th colspan="3">total (flowers included)</th><th>${r.total}</th></tr></table>`;
  }
  html += `<table class="settlement"><tr>${pay}</tr></table>`;
  html += `<div class="scores">scores by player: ${r.scores.map((x, p) =>
    `player ${p} ${x > 0 ? "+" : ""}${x}`).join(", ")}</div>`;
  if (idx === FR.length - 1 && DATA.table_points) {
    html += `<div class="tablepoints">table points by player: ` +
      `${DATA.table_points.join(", ")}</div>`;
  }
  return html;
}

function show() {
  const f = FR[idx];
  document.getElementById("counter").textContent = `step ${idx + 1} / ${FR.length}`;
  document.getElementById("slider").value = idx;
  const wl = new Set(f.wall_left).size === 1 ? `${f.wall_left[0]}` : f.wall_left.join(" / ");
  let info = `Hand ${f.hand + 1} \u00b7 prevalent ${WINDS[f.prevalent]} \u00b7 dealer seat ` +
    `${f.dealer} \u00b7 phase ${f.phase} \u00b7 wall <span id="wall">${wl}</span> left`;
  if (f.tile_in_play) info += ` \u00b7 in play ${tileSVG(f.tile_in_play)} from seat ${f.played_by}`;
  const info_el = document.getElementById("info");
  info_el.innerHTML = info;
  info_el.dataset.phase = f.phase;
  info_el.dataset.hand = f.hand;
  const ev = f.events[view] || [];
  document.getElementById("events").innerHTML = (f.step < 0 ? "deal" : `step ${f.step}: `) +
    ev.map(([s, t]) => `<span class="ev">seat ${s}: ${t}</span>`).join("");
  document.getElementById("table").innerHTML = [0, 1, 2, 3].map(s => seatHTML(f, s)).join("");
  document.getElementById("result").innerHTML = resultHTML(f);
}

function go(i) { idx = Math.max(0, Math.min(FR.length - 1, i)); show(); }
function hand(d) {
  const h = FR[idx].hand;
  let i = idx;
  if (d > 0) { while (i < FR.length - 1 && FR[i].hand === h) i++; }
  else { while (i > 0 && FR[i - 1].hand === h) i--; if (i === idx && i > 0) {
    const h2 = FR[i - 1].hand; i--; while (i > 0 && FR[i - 1].hand === h2) i--; } }
  go(i);
}

const sel = document.getElementById("view");
for (const v of DATA.views) {
  const o = document.createElement("option");
  o.value = v; o.textContent = v === "all" ? "all hands" : `seat ${v}`;
  sel.appendChild(o);
}
sel.addEventListener("change", () => { view = sel.value; show(); });
document.getElementById("slider").max = FR.length - 1;
document.getElementById("slider").addEventListener("input", e => go(Number(e.target.value)));
document.getElementById("first").onclick = () => go(0);
document.getElementById("last").onclick = () => go(FR.length - 1);
document.getElementById("prev").onclick = () => go(idx - 1);
document.getElementById("next").onclick = () => go(idx + 1);
document.getElementById("prevhand").onclick = () => hand(-1);
document.getElementById("nexthand").onclick = () => hand(1);
document.addEventListener("keydown", e => {
  if (e.target && e.target.tagName === "SELECT") return;
  const k = {ArrowRight: () => go(idx + 1), ArrowLeft: () => go(idx - 1), Home: () => go(0),
    End: () => go(FR.length - 1), PageDown: () => hand(1), PageUp: () => hand(-1)}[e.key];
  if (k) { k(); e.preventDefault(); }
});
show();
"""


if __name__ == "__main__":
    import sys

    sys.exit(main())
