"""The dashboard of a preference campaign: the leaderboard with its rank sets ("tied for
first"), the win rate of every judged pair with its anytime-valid verdict, what the
comparison graph still lacks, and the left side's win rate (position bias).

The numbers are estimators.preference.preference_report's on the campaign's judgments
(db.reads.preferences, weighted by the pairs' recorded inclusion probabilities), at the
campaign's α, error rate (Holm or e-BH) and ε; recomputed when the campaign's
fingerprint changes.
"""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from annotation.results.preference_export import export_preferences
from db.reads.preferences import preferences_of, read_preferences
from db.scores.judge_preferences import judge_streams_for
from estimators.preference import preference_report
from estimators.preference.leaderboard import ELO_SCALE
from formats.writers import MIME
from views.common import download, engine, literal
from views.dashboard.statistics_box import statistics_settings

VERDICT_TEXT = {
    "A better": "A better",
    "B better": "B better",
    "equivalent": "within ε",
    "undecided": "not yet",
}


@st.cache_data(max_entries=16, show_spinner=False)
def cached_preference_report(
    db: str, cid: int, key: tuple[int, ...], alpha: float, epsilon: float, correction: str
) -> tuple[Any, float]:
    """(the campaign's preference report, seconds it took), per fingerprint and settings;
    None before the first preference."""
    started = time.perf_counter()
    rows = read_preferences(engine(), cid)
    if rows.n == 0:  # nothing to estimate yet (the page says so)
        return None, time.perf_counter() - started
    report = preference_report(
        preferences_of(rows), alpha=alpha, epsilon=epsilon, correction=correction,
        judge=judge_streams_for(engine(), cid, rows),
    )  # fmt: skip
    return report, time.perf_counter() - started


def draw_preference_page(name: str, cid: int, key: tuple[int, ...]) -> None:
    """The page's live part for a preference campaign, then its downloads."""
    settings = statistics_settings(cid, key)
    report, seconds = cached_preference_report(
        str(engine().url), cid, key, settings.alpha, settings.equivalence_margin, settings.family
    )
    if report is None:
        st.info(
            "No preferences yet. Invite annotators: each is shown two outputs of one source "
            "side by side and says which is better, or that they tie. The leaderboard and "
            "the pairs' verdicts appear here as judgments arrive."
        )
        return
    ties = sum(p.ties for p in report.pairs)
    cols = st.columns(4)
    cols[0].metric("Preference judgments", f"{report.n:,}")
    cols[1].metric("Systems", len(report.systems))
    cols[2].metric("Ties", f"{ties / report.n:.0%}", help=f"{ties:,} of {report.n:,} judgments")
    decided = sum(p.outcome != "undecided" for p in report.pairs)
    k = len(report.systems)
    cols[3].metric("Decided pairs", f"{decided} / {k * (k - 1) // 2}")
    st.caption(f"Computed in {seconds:.2f} s; last checked {time.strftime('%H:%M:%S')}.")
    if report.floor is not None:
        st.caption(
            "Pairs drawn adaptively: the least settled first, every pair at least "
            f"{report.floor:.3f} of a source's draw. Each judgment weighs 1/π in the win rates "
            "and the verdicts (inverse-probability-weighted increments)."
        )
    for problem in report.problems:
        st.warning(literal(problem))
    draw_leaderboard(report)
    draw_pair_table(report)
    st.subheader("Position bias")
    st.caption(literal(report.position.text()[:1].upper() + report.position.text()[1:]) + ".")
    st.subheader("Download preferences")
    st.caption(
        "One row per judgment: model_a / model_b the systems shown on the left / right, "
        "winner model_a, model_b or tie (Chatbot Arena's columns), with the source, both "
        "outputs, strength, reason and the pair's inclusion probability."
    )
    c1, c2 = st.columns(2)
    for col, fmt in ((c1, "csv"), (c2, "jsonl")):
        download(col, f"Preferences ({fmt.upper()})",
                 lambda f=fmt: export_preferences(engine(), name, f),
                 f"{name}-preferences.{fmt}", MIME[fmt], key=f"dl-pref-{fmt}")  # fmt: skip


def draw_leaderboard(report: Any) -> None:
    """The Bradley–Terry (Davidson) leaderboard: who may be first, then every system."""
    st.subheader("Leaderboard (Bradley–Terry with ties, simultaneous intervals)")
    board = report.leaderboard
    if board is None:
        st.info("No leaderboard yet: the comparisons do not connect the systems (see above).")
        return
    first = board.first_text()
    st.markdown(f"**{literal(first[:1].upper() + first[1:])}**")
    st.caption(
        f"Rank sets at level {1 - report.alpha:.0%} for all systems at once: a system's "
        "plausible ranks given which score differences are significant. Scores on the Elo "
        "scale (1000 = the average system); intervals hold simultaneously."
    )
    st.dataframe(
        [
            {
                "Rank": str(r.rank),
                "System": r.system,
                "Score": round(r.elo),
                "Interval": f"{1000 + ELO_SCALE * r.low:.0f} – {1000 + ELO_SCALE * r.high:.0f}",
                "Judgments": r.n,
            }
            for r in board.rows
        ],
        hide_index=True,
        width="stretch",
    )


def draw_pair_table(report: Any) -> None:
    """Each judged pair: counts, A's win rate (ties half) with its anytime interval, and
    the verdict under the campaign's error rate."""
    correction = "Holm-adjusted" if report.correction == "holm" else "e-BH"
    st.subheader(f"Win rates by pair (anytime-valid, {correction})")
    judges = sorted({p.control for p in report.pairs if p.control})
    if judges:
        st.caption(
            f"{literal(', '.join(judges))}'s preferences are the control of the pairs marked "
            "below: the verdicts stay valid whatever the judge's accuracy and need fewer "
            "human judgments where it agrees with the humans."
        )
    st.dataframe(
        [
            {
                "A": p.a,
                "B": p.b,
                "Judgments": p.n,
                "A wins": p.wins_a,
                "Ties": p.ties,
                "B wins": p.wins_b,
                "A's win rate": f"{p.win_rate:.0%}",
                "Interval": f"{p.low:.0%} – {p.high:.0%}",
                "p (adjusted)": round(p.p_adjusted, 4),
                "Verdict": VERDICT_TEXT.get(str(p.outcome), str(p.outcome)),
                **({"Control": p.control or "—"} if judges else {}),
            }
            for p in report.pairs
        ],
        hide_index=True,
        width="stretch",
    )
