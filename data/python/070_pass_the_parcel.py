# difficulty: Medium
# topic: simulation
def pass_the_parcel(players: List[int]) -> int:
    ring = players[:]
    pos = 0
    while len(ring) > 1:
        pos = (pos + abs(ring[pos]) % 7) % len(ring)
        ring = ring[:pos] + ring[pos + 1:]
        pos %= len(ring)
    return ring[0]
