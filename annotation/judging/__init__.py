"""The annotator's judgments: the session, saving, skipping and undoing a judgment on every screen
(labels, spans, DA, comparative), tutorials."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "ai_prefill": ["export_columns", "is_prefilled", "prefill_spans"],
        "comparative": ["position_bias"],
        "da_judgments": ["scale"],
        "diff": ["diff_html", "literal_html"],
        "document_scores": [
            "DocumentPairRow",
            "DocumentSystemRow",
            "document_report",
            "document_tables",
        ],
        "span_judgments": [
            "SettingsLocked",
            "campaign_config",
            "set_campaign_config",
            "span_agreement",
            "undone_spans",
        ],
        "spans": [
            "MAX_SPANS",
            "SpanConfig",
            "SpanError",
            "Weights",
            "derive",
            "parse_spans",
            "snap_to_words",
        ],
    },
)
