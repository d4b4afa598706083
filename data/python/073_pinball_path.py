# difficulty: Medium
# topic: simulation
def pinball_path(board: List[int]) -> int:
    n = len(board)
    pos = 0
    score = 0
    visits = [0] * n
    while 0 <= pos < n and visits[pos] < 2:
        visits[pos] += 1
        cell = board[pos]
        score += cell
        if cell % 3 == 0:
            pos -= abs(cell) % 4 + 1
        else:
            pos += cell % 3 + (1 if cell > 0 else 0)
    return score
