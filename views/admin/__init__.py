"""The administrators' forms and panels: annotators, study links, tasks, the queue, guidelines,
span settings, campaign life, imports of MQM, AI spans and Pearmut campaigns."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "annotator_list": ["annotator_table", "invite_form"],
        "annotators_study": ["public_title_form", "rebuild_button", "study_link_panel"],
        "campaign_life": ["archived_section", "before_picker", "manage"],
        "import_ai_spans": ["ai_spans_tab"],
        "import_flow": ["clear_upload", "import_new_campaign", "new_campaign_name", "upload_key"],
        "import_mqm": ["import_mqm_form", "is_mqm_tsv"],
        "import_pearmut": ["import_pearmut_form", "is_pearmut"],
        "long_work": ["finished", "run_to_the_end", "show_finished"],
        "queue_panel": [
            "build_queue_button",
            "document_context_form",
            "document_order_form",
            "queue_settings_panel",
            "queue_status",
            "sampling_form",
            "statistics_pointer",
        ],
    },
)
