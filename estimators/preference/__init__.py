"""Pairwise preferences: win rates with anytime verdicts, the Bradley–Terry–Davidson
leaderboard, the comparison graph's checks, position bias, the planner, a judge as a control."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "leaderboard": ["ELO_SCALE", "Leaderboard", "SystemScore", "bradley_terry"],
        "data": ["Preferences", "preferences_from_names"],
        "graph": ["GraphCheck", "check_graph"],
        "judge": ["JudgeControl", "JudgePosition", "judge_control", "judge_position"],
        "pairs": ["PairPreference", "pair_preferences"],
        "planner": ["PreferencePlan", "labels_needed"],
        "position": ["LeftBias", "left_bias"],
        "report": ["PreferenceReport", "preference_report"],
    },
)
