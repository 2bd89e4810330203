"""Bringing data in, all or nothing: campaign files, metric scores, WMT's MQM TSV, AI error spans,
Pearmut campaigns and logs, the demo campaign."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "ai_spans": ["import_ai_spans"],
        "check": ["check_campaign_upload"],
        "demo": ["seed_demo", "seed_demo_if_empty"],
        "importer": ["import_campaign"],
        "mqm": ["export_mqm_tsv", "import_mqm_tsv", "summarize_mqm_tsv"],
        "pearmut": ["import_pearmut", "preview_pearmut"],
        "score_columns": ["export_scores"],
        "scores_import": ["import_scores", "imported_coverage"],
    },
)
