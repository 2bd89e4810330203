"""The error-span screens (MQM / ESA, ESA^AI): the span widget, its events and keys, the unsaved
spans, the comparative span screen."""
