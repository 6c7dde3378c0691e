"""Playing games: the game loop and simulation, strategies, tournaments, their statistics and
plots. It imports the core, proc and analysis.
"""
