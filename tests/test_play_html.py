"""The HTML replay viewer (mcr_env.play.html, ``mcr-view``, ``scripts/replay.py --html``): frames
agree with the engine step by step, seat views hold nothing that seat could not see, and the
page works in headless Chromium (no console errors, stepping shows the record's state, the
screenshot is not blank)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from baselines.agents import RandomAgent
from mcr_env.engine import MCREngine, RulesConfig
from mcr_env.engine.records import GameRecorder, replay
from mcr_env.eval.play import play_games
from mcr_env.play.html import record_frames, record_to_html, write_html
from mcr_env.tiles import tile_to_code

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _records(n: int, seed: int, match: bool = False) -> list[dict]:
    eng = GameRecorder(MCREngine(n, RulesConfig(match="match" if match else "hand")))
    eng.reset(seed=seed)
    agents = [RandomAgent(seed=seed + s) for s in range(4)]
    play_games(eng, agents, np.tile(np.arange(4), (n, 1)), None, max_steps=100_000)
    return sorted(eng.pop_finished(), key=lambda r: r["origin"]["game"])


@pytest.fixture(scope="module")
def angang_record() -> dict:
    """A single-hand record (random agents) with a concealed kong and a claimed discard."""
    for rec in _records(64, 5):
        names = [row[3] for row in rec["hands"][0]["decisions"]]
        if any(x.startswith("AnGang") for x in names) and any(
            x.startswith(("Chi", "Peng")) for x in names
        ):
            return rec
    raise AssertionError("no record with a concealed kong and a claim among 64 seeded games")


def _engine_states(record: dict, rows: list | None = None) -> list:
    """Independent reference: the engine state after the deal and after every step of an
    engine asking every seat in every claim round (the page's steps, docs/rules.md §10);
    ``rows`` receives each step's decision rows."""
    states = []

    def on_step(eng, step, d):
        states.append(eng.state.copy())
        if rows is not None and step >= 0:
            rows.append(d)

    replay(record, on_step=on_step, claim_round="all")
    return states


def test_frames_follow_the_engine_step_by_step(angang_record):
    frames = record_frames(angang_record)
    rows: list = []
    states = _engine_states(angang_record, rows)
    assert len(frames) == len(states) == len(rows) + 1
    # the record skipped the rounds nobody could claim; the page shows them as steps
    assert len(frames) > len({r[0] for r in angang_record["hands"][0]["decisions"]}) + 1
    for f, st in zip(frames, states):
        assert f["wall_left"] == st.tiles_left[0].tolist()
        for s in range(4):
            n = int(st.n_discards[0, s])
            assert [c for c, _ in f["seats"][s]["discards"]] == [
                tile_to_code(int(t)) for t in st.discards[0, s, :n]
            ]
            assert [cl for _, cl in f["seats"][s]["discards"]] == st.discard_claimed[
                0, s, :n
            ].tolist()
            hand = sorted(
                f["seats"][s]["hand"] + ([f["seats"][s]["drawn"]] if f["seats"][s]["drawn"] else [])
            )
            want = sorted(tile_to_code(t) for t in np.repeat(np.arange(34), st.hand[0, s]))
            assert hand == want
            assert len(f["seats"][s]["melds"]) == int(st.n_melds[0, s])
    res = frames[-1]["result"]
    rec_res = angang_record["hands"][0]["result"]
    assert res["settlement"] == rec_res["settlement"]
    assert res["total"] == rec_res["total"]
    assert [r[0] for r in res["fans"]] == [f["name"] for f in rec_res["fans"]]
    # every step's decisions are listed in the full view, in seat order
    assert [f["events"]["all"] for f in frames[1:]] == [
        [[seat, name] for _, seat, _a, name in d] for d in rows
    ]
    recorded = [r[1:] for r in angang_record["hands"][0]["decisions"]]
    shown = [[s, a, n] for d in rows for _, s, a, n in d]
    assert all(r in shown for r in recorded)  # the record's decisions, plus Pass-only ones


def test_seat_file_holds_only_that_seats_view(angang_record):
    owner = next(r[1] for r in angang_record["hands"][0]["decisions"] if r[3].startswith("AnGang"))
    viewer = (owner + 1) % 4
    frames = record_frames(angang_record, seat=viewer)
    saw_kong = False
    for f in frames:
        assert set(f["events"]) == {str(viewer)}
        for s, st in enumerate(f["seats"]):
            if s == viewer:
                assert st["hand"] is not None
                continue
            assert st["hand"] is None and st["drawn"] is None
            for m in st["melds"]:
                if m["kind"] == "AnGang":
                    saw_kong = True
                    assert m["tiles"] == [None] * 4
        for s, text in f["events"][str(viewer)]:
            if s != viewer:
                assert text != "Pass" and not re.match(r"AnGang [WTBFJ]", text)
    assert saw_kong
    # the owner's own view shows its kong's tile
    own = record_frames(angang_record, seat=owner)[-1]["seats"][owner]["melds"]
    assert any(m["kind"] == "AnGang" and None not in m["tiles"] for m in own)
    page = record_to_html(angang_record, seat=viewer)
    data = json.loads(
        re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S)
        .group(1)
        .replace("<\\/", "</")
    )
    assert data["views"] == [str(viewer)] and data["frames"] == json.loads(json.dumps(frames))


def test_page_is_self_contained(angang_record, tmp_path):
    page = write_html(tmp_path / "g.html", angang_record).read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    for needle in ("http://", "https://", "<link", "src=", "@import", "url("):
        assert needle not in page, needle


def test_replay_script_and_mcr_view_write_the_same_page(angang_record, tmp_path):
    from mcr_env.engine.records import write_records

    path = tmp_path / "g.jsonl"
    write_records(path, [angang_record, angang_record])
    out1, out2 = tmp_path / "a.html", tmp_path / "b.html"
    cmd = [sys.executable, str(ROOT / "scripts" / "replay.py"), str(path), "--index", "1"]
    r = subprocess.run(cmd + ["--html", str(out1)], capture_output=True, text=True, check=True)
    assert "record 1: verified" in r.stdout
    r = subprocess.run(
        [sys.executable, "-m", "mcr_env.play.html", str(path), "--index", "1", "--out", str(out2)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    assert out1.read_text() == out2.read_text() == record_to_html(angang_record)
    r = subprocess.run(
        [sys.executable, "-m", "mcr_env.play.html", str(path), "--index", "5"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 2 and r.stderr.strip() == "mcr-view: error: --index 5 out of range 0..1"


def test_match_record_frames_have_each_hand_end_and_deal():
    rec = _records(1, 11, match=True)[0]
    frames = record_frames(rec)
    results = [f["result"] for f in frames if "result" in f]
    assert [r["hand"] for r in results] == list(range(16))
    assert [r["settlement"] for r in results] == [h["result"]["settlement"] for h in rec["hands"]]
    assert results[-1]["scores"] == rec["final_scores"]
    deals = [f for f in frames if f["step"] == -1 or (f["events"]["all"] == [] and f["step"] >= 0)]
    assert [f["hand"] for f in deals] == list(range(16))
    for f, h in zip(deals, rec["hands"]):
        assert f["dealer"] == h["dealer"] and f["prevalent"] == h["prevalent_wind"]
        assert [s["player"] for s in f["seats"]] == h["player_at_seat"]


# ------------------------------------------------------------------ headless Chromium
@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Debian package chromium is required (make test installs it)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


def _open(browser, path):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    return page, errors


def _dom_seat(page, s):
    hand = page.eval_on_selector_all(
        f'.seat[data-seat="{s}"] .hand .tile', "els => els.map(e => e.dataset.code)"
    )
    disc = page.eval_on_selector_all(
        f'.seat[data-seat="{s}"] .discards .tile',
        "els => els.map(e => [e.dataset.code, e.classList.contains('claimed')])",
    )
    return hand, disc


def test_browser_steps_through_the_record(browser, angang_record, tmp_path):
    path = write_html(tmp_path / "g.html", angang_record)
    states = _engine_states(angang_record)
    page, errors = _open(browser, path)
    assert page.inner_text("#counter") == f"step 1 / {len(states)}"
    checked = 0
    for k in range(len(states)):
        if k:
            page.keyboard.press("ArrowRight")
        if k % 7 and k != len(states) - 1:
            continue
        st = states[k]
        assert page.inner_text("#counter") == f"step {k + 1} / {len(states)}"
        assert page.inner_text("#wall") == str(int(st.tiles_left[0, 0]))
        for s in range(4):
            hand, disc = _dom_seat(page, s)
            assert sorted(hand) == sorted(
                tile_to_code(t) for t in np.repeat(np.arange(34), st.hand[0, s])
            )
            n = int(st.n_discards[0, s])
            assert disc == [
                [tile_to_code(int(t)), bool(c)]
                for t, c in zip(st.discards[0, s, :n], st.discard_claimed[0, s, :n])
            ]
        checked += 1
    assert checked >= 5
    text = page.inner_text("#result")
    res = angang_record["hands"][0]["result"]
    assert "Hand 1:" in text and all(f"{x:+d}" in text or str(x) in text for x in res["settlement"])
    # buttons: back one, first, last
    page.click("#prev")
    assert page.inner_text("#counter") == f"step {len(states) - 1} / {len(states)}"
    page.click("#first")
    assert page.inner_text("#counter") == f"step 1 / {len(states)}"
    page.click("#last")
    assert page.inner_text("#counter") == f"step {len(states)} / {len(states)}"
    # seat view: the other hands are backs, the own hand is shown
    page.select_option("#view", "2")
    for s in range(4):
        hand, _ = _dom_seat(page, s)
        if s == 2:
            assert "hidden" not in hand and len(hand) == int(states[-1].hand[0, 2].sum())
        else:
            assert set(hand) <= {"hidden"}
    shot = tmp_path / "shot.png"
    page.screenshot(path=str(shot), full_page=True)
    assert errors == []
    import matplotlib.image as mpimg

    img = mpimg.imread(str(shot))
    assert img.shape[0] > 300 and img.shape[1] > 600
    colors = np.unique((img[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colors) > 50  # tiles, text and background, not one flat colour
    page.close()
