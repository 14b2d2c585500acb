"""The rules of the game: cards, the tableau, bets, variants and exact odds. Pure."""
