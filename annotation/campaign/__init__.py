"""A campaign's settings: statistics, the live plan, visibility, guidelines, titles, quality
defaults, context, document order."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "context": ["ContextSegment", "document_context"],
        "guidelines": ["MAX_GUIDELINES_CHARS", "set_guidelines"],
        "live_plan": ["current_plan", "forecast_planned_labels", "set_plan"],
        "meta_settings": ["switch_setting"],
        "public_title": ["DEFAULT", "set_public_title"],
        "quality": ["DEFAULT_ATTENTION_RATE", "DEFAULT_OVERLAP", "qc_cost"],
        "statistics_settings": [
            "EXPORT_COLUMNS",
            "FAMILIES",
            "LEVEL_WARNING",
            "LEVEL_WARNING_SHORT",
            "PANEL",
            "SETTING_KEYS",
            "SETTING_WORDS",
            "StatisticsSettings",
            "change_sentence",
            "read_at",
            "read_at_text",
            "read_statistics",
            "set_statistics",
            "setting_words",
            "value_words",
        ],
        "visibility": [
            "ConfirmationNeeded",
            "TRADE_OFF",
            "label_count",
            "metric_visibility",
            "set_metric_visibility",
            "shown_at",
            "visibility_statement",
        ],
    },
)
