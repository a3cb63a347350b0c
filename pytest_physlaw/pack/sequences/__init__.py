"""Laws that follow a model through the API sequences users run between loading it and stepping it: a compiled model
edited in place and saved (`mj_saveLastXML`), a spec edited and compiled again, a tool attached to the model
(`MjSpec.attach`), a geom resized then `mj_setConst`. Each compares the model after the sequence with the same model
built in one go (the edit written in the file, compiled once): loaded and stepped as written, such a model is right on
every release, so only the sequence shows a release that loses an edit between two compiles.

- `saved_edits`: a compiled model edited in place, saved and loaded again, is the edited model.
- `spec_edits`: a spec whose bodies and frames moved, compiled again, is the spec compiled once.
- `attach`: a tool attached to the model keeps the model's keyframes and its physics.
- `scene_attach`: the model attached into an empty scene is the model.
- `resize`: geoms resized in place, then `mj_setConst`, are the geoms compiled at that size.
"""
