"""Conformance checking: the cases, the engine protocol and its harness, blame, perft, replay of
transcripts and fuzzing (docs/conformance/). It imports the core, proc and play.
"""
