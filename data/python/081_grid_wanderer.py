# difficulty: Medium
# topic: simulation
def grid_wanderer(moves: List[int]) -> int:
    row, col = 2, 2
    visited = {12}
    for m in moves:
        d = m % 4
        steps = abs(m) % 3 + 1
        for _ in range(steps):
            if d == 0:
                row = (row - 1) % 5
            elif d == 1:
                col = (col + 1) % 5
            elif d == 2:
                row = (row + 1) % 5
            else:
                col = (col - 1) % 5
            visited.add(row * 5 + col)
    return sum(visited)
