"""The dashboard's "Position bias" panel: on comparative screens, does an output's place
change its judgment? Numbers from annotation.judging.comparative.position_bias
(estimators.judgments.position_bias); drawn only for a campaign with comparative judgments."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation.judging.comparative import position_bias
from views.common import engine


@st.cache_data(max_entries=16, show_spinner=False)
def _cached(db: str, cid: int, fp: tuple[int, ...], alpha: float):  # type: ignore[no-untyped-def]
    return position_bias(engine(), cid, alpha)


def draw_position_bias(cid: int, fp: tuple[int, ...], alpha: float = 0.05) -> None:
    """The panel (nothing when the campaign has no comparative screens)."""
    res = _cached(str(engine().url), cid, fp, alpha)
    if res is None:
        return
    st.subheader("Position bias (comparative screens)")
    rows = [
        {
            "place on screen": j + 1,
            "share adequate": res.mean[j],
            "low": res.mean_low[j],
            "high": res.mean_high[j],
            "effect (vs. its screen)": res.effect[j],
            "effect low": res.effect_low[j],
            "effect high": res.effect_high[j],
        }
        for j in range(res.size)
    ]
    st.dataframe(pd.DataFrame(rows).round(3), hide_index=True, width="stretch")
    verdict = "a position effect is detected" if res.detected else "no position effect detected"
    cochran = (
        ""
        if res.p_cochran is None
        else f"; Cochran's Q = {res.cochran_q:.2f}, p = {res.p_cochran:.3g}"
    )
    st.caption(
        f"{res.n_screens:,} complete screens of {res.size} outputs: {verdict} at α = "
        f"{res.alpha:g} (within-screen permutation test, p = {res.p_permutation:.3g}{cochran}). "
        "Effect = the label at that place minus its screen's mean, with "
        f"{1 - res.alpha:.0%} intervals over screens. Outputs are shuffled per annotator, so a "
        "bias adds noise but does not favour any system."
    )
