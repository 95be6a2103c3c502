"""Contract scores (Law 77), the contract parser, and board dealer/vulnerability."""

import itertools

import pytest

from scoring import (
    Contract,
    ContractError,
    ScoringError,
    board_dealer,
    board_vulnerability,
    contract_score,
    parse_contract,
    tricks_from_result,
    validate_declarer,
    validate_tricks,
)

# RULES 5.1 worked examples: (contract, tricks, vulnerable, declaring side's score).
WORKED_EXAMPLES = [
    ("3NT", 9, False, 400),
    ("4S", 10, True, 620),
    ("2S", 8, False, 110),
    ("3CX", 11, False, 670),
    ("3CX", 11, True, 1070),
    ("6SXX", 13, False, 1820),
    ("6SXX", 13, True, 2470),
    ("7NTXX", 13, True, 2980),
    ("1NTX", 4, True, -800),
    ("4H", 9, False, -50),
    ("3NT", 7, True, -200),
    ("1SX", 10, True, 760),
    ("6S", 12, True, 1430),
]

# Board vulnerability that makes the declarer's side (non-)vulnerable, for each seat.
VULNERABLE_BOARD = {"N": "NS", "S": "NS", "E": "EW", "W": "EW"}
NOT_VULNERABLE_BOARD = {"N": "EW", "S": "EW", "E": "NS", "W": "NS"}


@pytest.mark.parametrize(("contract", "tricks", "vulnerable", "expected"), WORKED_EXAMPLES)
@pytest.mark.parametrize("declarer", ["N", "S", "E", "W"])
def test_spec_worked_examples_from_every_seat(contract, tricks, vulnerable, expected, declarer):
    boards = (["Both", VULNERABLE_BOARD[declarer]] if vulnerable else
              ["None", NOT_VULNERABLE_BOARD[declarer]])  # fmt: skip
    ns_expected = expected if declarer in "NS" else -expected
    for board_vulnerability_ in boards:
        assert contract_score(contract, declarer, tricks, board_vulnerability_) == ns_expected


def test_worked_examples_with_suit_symbols():
    assert contract_score("4♠", "N", 10, "Both") == 620
    assert contract_score("3♣X", "S", 11, "None") == 670
    assert contract_score("6♠XX", "N", 13, "NS") == 2470


def test_vulnerability_of_the_declaring_side_is_what_counts():
    # Board vulnerable for NS only: East declaring is not vulnerable.
    assert contract_score("4S", "E", 10, "NS") == -420
    assert contract_score("4S", "E", 10, "EW") == -620
    assert contract_score("4S", "N", 10, "EW") == 420
    # Defeated contracts: the penalty goes to the defenders.
    assert contract_score("3NT", "W", 7, "EW") == 200
    assert contract_score("1NTX", "E", 4, "NS") == 500
    assert contract_score("1NTX", "E", 4, "Both") == 800


def test_pass_out_scores_zero_whatever_the_rest_says():
    for text in ["PASS", "pass", "P", "p", "passed out", "Passed Out", " Pass "]:
        assert parse_contract(text) is None
        assert contract_score(text, "", 99, "Both") == 0
    assert contract_score(None, "N", 0, "None") == 0


# --- Law 77 written out a different way: trick by trick, as a scorer would count. ---


def law77_declarer_score(level, strain, doubling, vulnerable, tricks):
    factor = (1, 2, 4)[doubling]
    needed = level + 6
    if tricks < needed:
        penalty = 0
        for undertrick in range(1, needed - tricks + 1):
            if doubling == 0:
                penalty += 100 if vulnerable else 50
                continue
            if vulnerable:
                step = 200 if undertrick == 1 else 300
            elif undertrick == 1:
                step = 100
            elif undertrick <= 3:
                step = 200
            else:
                step = 300
            penalty += step * (2 if doubling == 2 else 1)
        return -penalty

    contract_points = 0
    for trick in range(1, level + 1):
        if strain in ("C", "D"):
            value = 20
        elif strain in ("H", "S"):
            value = 30
        else:
            value = 40 if trick == 1 else 30
        contract_points += value * factor
    total = contract_points
    if contract_points >= 100:
        total += 500 if vulnerable else 300
    else:
        total += 50
    if level == 6:
        total += 750 if vulnerable else 500
    if level == 7:
        total += 1500 if vulnerable else 1000
    if doubling == 1:
        total += 50
    if doubling == 2:
        total += 100
    for _overtrick in range(tricks - needed):
        if doubling == 0:
            total += 20 if strain in ("C", "D") else 30
        elif doubling == 1:
            total += 200 if vulnerable else 100
        else:
            total += 400 if vulnerable else 200
    return total


ALL_COMBINATIONS = list(
    itertools.product(range(1, 8), ("C", "D", "H", "S", "NT"), (0, 1, 2), (False, True), range(14))
)


def test_every_contract_every_result_matches_law77():
    assert len(ALL_COMBINATIONS) == 7 * 5 * 3 * 2 * 14
    mismatches = []
    for level, strain, doubling, vulnerable, tricks in ALL_COMBINATIONS:
        text = f"{level}{strain}{'X' * doubling}"
        expected = law77_declarer_score(level, strain, doubling, vulnerable, tricks)
        for declarer in "NESW":
            board = (VULNERABLE_BOARD if vulnerable else NOT_VULNERABLE_BOARD)[declarer]
            got = contract_score(text, declarer, tricks, board)
            ns_expected = expected if declarer in "NS" else -expected
            if got != ns_expected:
                mismatches.append((text, declarer, tricks, board, got, ns_expected))
    assert mismatches == []


def test_independent_table_agrees_with_endplay():
    """A third opinion on the test's own table, from the endplay library when present."""
    types = pytest.importorskip("endplay.types")
    denoms = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades", "NT": "nt"}
    penalties = ("passed", "doubled", "redoubled")
    for level, strain, doubling, vulnerable, tricks in ALL_COMBINATIONS:
        deal = types.Contract(
            level=level,
            denom=getattr(types.Denom, denoms[strain]),
            declarer=types.Player.north,
            penalty=getattr(types.Penalty, penalties[doubling]),
            result=tricks - level - 6,
        )
        vul = types.Vul.ns if vulnerable else types.Vul.none
        assert deal.score(vul) == law77_declarer_score(level, strain, doubling, vulnerable, tricks)


def test_extremes():
    assert contract_score("7NTXX", "N", 0, "Both") == -7600
    assert contract_score("7NTXX", "N", 0, "None") == -7000
    # 1♣XX is a partscore (80 below the line) however many overtricks it makes.
    assert contract_score("1CXX", "N", 13, "Both") == 80 + 50 + 100 + 6 * 400
    assert contract_score("2CXX", "N", 8, "None") == 160 + 300 + 100
    assert contract_score("1C", "N", 7, "None") == 70


# --- Parser ---


@pytest.mark.parametrize(
    ("text", "level", "strain", "doubling"),
    [
        ("4S", 4, "S", 0),
        ("4♠", 4, "S", 0),
        ("4♤", 4, "S", 0),
        ("4♠️", 4, "S", 0),
        ("3NT", 3, "NT", 0),
        ("3N", 3, "NT", 0),
        ("3nt", 3, "NT", 0),
        ("3n", 3, "NT", 0),
        ("6HX", 6, "H", 1),
        ("6♥x", 6, "H", 1),
        ("6♡X", 6, "H", 1),
        ("7NTXX", 7, "NT", 2),
        ("7nxx", 7, "NT", 2),
        ("4s", 4, "S", 0),
        ("4sx", 4, "S", 1),
        ("1♣", 1, "C", 0),
        ("1♧XX", 1, "C", 2),
        ("2♦", 2, "D", 0),
        ("2♢x", 2, "D", 1),
        ("5d", 5, "D", 0),
        (" 4 S X ", 4, "S", 1),
        ("４Ｓ", 4, "S", 0),  # full-width, as typed with a Chinese input method
    ],
)
def test_parser_accepts(text, level, strain, doubling):
    assert parse_contract(text) == Contract(level, strain, doubling)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0S", "level must be 1–7"),
        ("8NT", "level must be 1–7"),
        ("10H", "level must be 1–7"),
        ("4Z", "unknown strain 'Z'"),
        ("4ZX", "unknown strain 'Z'"),
        ("4", "has no strain"),
        ("4X", "has no strain"),
        ("4SXXX", "bad doubling 'XXX'"),
        ("4SY", "bad doubling 'Y'"),
        ("3NTR", "bad doubling 'R'"),
        ("S4", "must start with its level"),
        ("NT", "must start with its level"),
        ("", "empty"),
        ("   ", "empty"),
    ],
)
def test_parser_refuses_with_a_message_naming_the_problem(text, message):
    with pytest.raises(ContractError, match=message):
        parse_contract(text)


def test_contract_error_is_a_scoring_error_and_a_value_error():
    with pytest.raises(ScoringError):
        parse_contract("9S")
    with pytest.raises(ValueError):
        parse_contract("9S")
    with pytest.raises(ContractError):
        parse_contract(42)


def test_contract_text_forms():
    assert str(parse_contract("4♠x")) == "4SX"
    assert str(parse_contract("3n")) == "3NT"
    assert str(parse_contract("7ntxx")) == "7NTXX"
    assert parse_contract("4♠x").display() == "4♠X"
    assert parse_contract("2dxx").display() == "2♦XX"
    assert parse_contract("1c").display() == "1♣"
    assert parse_contract("6h").display() == "6♥"
    assert parse_contract("3nt").display() == "3NT"
    for contract in (Contract(level, strain, d) for level, strain, d, *_ in ALL_COMBINATIONS):
        assert parse_contract(str(contract)) == contract
        assert parse_contract(contract.display()) == contract


def test_contract_refuses_bad_fields():
    for fields in [(0, "S", 0), (8, "S", 0), (4, "X", 0), (4, "S", 3), (4, "N", 0)]:
        with pytest.raises(ContractError):
            Contract(*fields)


def test_declarer_validation():
    assert [validate_declarer(d) for d in ["n", "E", " s ", "w", "North", "WEST"]] == list("NESWNW")
    for bad in ["", "X", "NS", None, 1]:
        with pytest.raises(ContractError, match="declarer must be N, E, S or W"):
            validate_declarer(bad)
    with pytest.raises(ContractError, match="declarer"):
        contract_score("4S", "Q", 10, "None")


def test_tricks_validation():
    assert [validate_tricks(t) for t in (0, 7, 13)] == [0, 7, 13]
    for bad in [-1, 14]:
        with pytest.raises(ContractError, match="from 0 to 13"):
            validate_tricks(bad)
    for bad in [9.0, "9", None, True]:
        with pytest.raises(ContractError, match="whole number"):
            validate_tricks(bad)
    with pytest.raises(ContractError):
        contract_score("4S", "N", 14, "None")


def test_vulnerability_validation():
    assert contract_score("4S", "N", 10, "both") == 620
    for bad in ["All", "", "N", None]:
        with pytest.raises(ScoringError, match="vulnerability"):
            contract_score("4S", "N", 10, bad)


@pytest.mark.parametrize(
    ("contract", "result", "tricks"),
    [
        ("4S", "=", 10),
        ("4S", "+1", 11),
        ("4S", "-2", 8),
        ("4S", "−2", 8),  # typographic minus
        ("4S", "–2", 8),  # en dash
        ("4S", " + 3 ", 13),
        ("1NT", "-7", 0),
        ("7NTXX", "=", 13),
        ("1C", "+6", 13),
        (Contract(3, "NT"), "-1", 8),
    ],
)
def test_tricks_from_result(contract, result, tricks):
    assert tricks_from_result(contract, result) == tricks


@pytest.mark.parametrize(
    ("contract", "result", "message"),
    [
        ("7NT", "+1", "would be 14 tricks"),
        ("1NT", "-8", "would be -1 tricks"),
        ("4S", "", "result must be"),
        ("4S", "10", "result must be"),
        ("4S", "+", "result must be"),
        ("4S", "-0", "write ="),
        ("PASS", "=", "passed-out"),
        ("9S", "=", "level must be 1–7"),
    ],
)
def test_tricks_from_result_refusals(contract, result, message):
    with pytest.raises(ContractError, match=message):
        tricks_from_result(contract, result)


def test_dealer_cycle():
    assert [board_dealer(n) for n in range(1, 9)] == list("NESWNESW")
    assert board_dealer(17) == "N"
    assert board_dealer(100) == "W"


def test_vulnerability_cycle():
    expected = {
        "None": [1, 8, 11, 14],
        "NS": [2, 5, 12, 15],
        "EW": [3, 6, 9, 16],
        "Both": [4, 7, 10, 13],
    }
    for vulnerability, boards in expected.items():
        for board in boards:
            for cycle in range(4):
                assert board_vulnerability(board + 16 * cycle) == vulnerability


@pytest.mark.parametrize("bad", [0, -1, 1.0, "1", None, True])
def test_board_number_refusals(bad):
    with pytest.raises(ScoringError, match="board number"):
        board_dealer(bad)
    with pytest.raises(ScoringError, match="board number"):
        board_vulnerability(bad)
