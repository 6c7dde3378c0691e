"""The rule core: the edition tables read into values, the immutable state, the interpreter's
transitions and every rule's one decider (docs/core.md). Compiled with mypyc in a built wheel.
It imports no other room.
"""
