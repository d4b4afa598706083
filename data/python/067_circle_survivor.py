# difficulty: Medium
# topic: simulation
def circle_survivor(n: int) -> int:
    seats = list(range(1, abs(n) % 30 + 6))
    skip = abs(n) % 4 + 2
    pos = 0
    while len(seats) > 1:
        pos = (pos + skip - 1) % len(seats)
        seats = seats[:pos] + seats[pos + 1:]
    return seats[0]
