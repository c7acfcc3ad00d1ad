# Built-in models: filled in by the model loader (src/model/).
set(TWINMAF_MODEL_SOURCES "")
