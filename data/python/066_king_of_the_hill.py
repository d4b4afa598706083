# difficulty: Medium
# topic: simulation
def king_of_the_hill(challengers: List[int], streak: int) -> int:
    need = abs(streak) % 5 + 2
    queue = challengers[1:]
    champ = challengers[0]
    head = 0
    wins = 0
    rounds = 0
    while wins < need and rounds < 40 and head < len(queue):
        rival = queue[head]
        head += 1
        if rival > champ:
            queue.append(champ)
            champ = rival
            wins = 1
        else:
            queue.append(rival)
            wins += 1
        rounds += 1
    return champ + rounds
