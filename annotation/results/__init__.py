"""What a campaign owner takes away: exports, results tables, ρ/η calibration, what to keep before
a deletion."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "calibration": [
            "calibration_export",
            "campaign_calibration",
            "import_calibration",
            "with_learned_control",
        ],
        "campaign_life": ["FINAL_EXPORTS", "final_exports"],
        "exports": [
            "ANNOTATION_FORMATS",
            "UnknownCampaign",
            "campaign_id_or_fail",
            "export_annotations",
            "export_campaign",
        ],
        "pearmut_export": ["NotPearmutShaped", "export_pearmut"],
        "preference_export": ["PREFERENCE_FORMATS", "export_preferences"],
        "result_exports": ["campaign_results", "pairs_csv", "results_csv", "results_latex"],
    },
)
