"""Recognisers: each composes features and a model into "documents in, predictions out".

A recogniser is chosen by its registry name in the config (``model.name``); see
:func:`mainentity.recognizers.base.make_recognizer`.
"""

from mainentity.recognizers.base import Recognizer, make_recognizer, recognizer_names

__all__ = ["Recognizer", "make_recognizer", "recognizer_names"]
