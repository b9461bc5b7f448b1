package repro

import "fmt"

// A reproduction whose defect lies in more than one answer (a wallet that
// the payments before it left wrong, a wave of payments at once) keeps its
// answers and computes the check itself: Save keeps an answer under a
// name, WalletFrom, Paid and WalletCheck do the wallet's arithmetic as
// internal/contract does it (contract.WalletRange: a payment created takes
// what its amount reports, a mixed one may not have taken it yet; a
// refusal takes nothing), and the script says its verdict: a line starting
// with DEFECT, exit status 1, or NoDefect's line, exit status 0.

// DefectWord starts the line a script prints when it sees the defect.
const DefectWord = "DEFECT"

// NoDefectLine is the line a script prints when it ran through without
// seeing the defect.
const NoDefectLine = "no defect seen"

// checkFuncs are the shell functions of the checks. An answer kept as NAME
// is $DIR/NAME (its body) and $DIR/NAME.code (its HTTP status).
//
//   - send NAME CURL...: runs the curl command, keeps its answer as NAME,
//     and prints it on one line;
//   - num NAME PATTERN: the integer after PATTERN (a sed pattern ending in
//     a JSON key) in the answer NAME, or nothing;
//   - wallet_from NAME: the wallet the profile answer NAME shows is where
//     the check starts (contract.Exactly);
//   - paid NAME: the payment answer NAME, if created (200), took what its
//     amount reports, and a mixed one (a gateway remainder and balance or
//     coins) may not have taken it yet (contract.WalletRange.After);
//   - wallet_check NAME [WHERE]: the wallet the profile answer NAME shows
//     is within what the payments leave (contract.CheckWalletAsReported),
//     or the function prints the DEFECT line and fails; within, the range
//     is what it shows (contract.WalletRange.Shown);
//   - taken_within [WHERE]: the payments since wallet_from took together
//     no more than the wallet held (contract.CheckTakenWithin), or the
//     function prints the DEFECT line and fails.
const checkFuncs = `DIR=$(mktemp -d) && trap 'rm -rf "$DIR"' EXIT
send() { name=$1; shift; "$@" -o "$DIR/$name" -w '%{http_code}\n' >"$DIR/$name.code" || echo 000 >"$DIR/$name.code"; printf '%s: HTTP %s %s\n' "$name" "$(cat "$DIR/$name.code")" "$(cat "$DIR/$name" 2>/dev/null)"; }
num() { tr -d '\n' <"$DIR/$1" | sed -n "s/.*$2 *: *\(-\{0,1\}[0-9][0-9]*\).*/\1/p"; }
wallet_of() {
  W_BAL=$(num "$1" '"balance" *: *{[^}]*"available"'); W_COINS=$(num "$1" '"coin" *: *{[^}]*"available"')
  if [ -z "$W_BAL" ] || [ -z "$W_COINS" ]; then echo "the profile answer $1 shows no balance.available and coin.available: the wallet cannot be read (its answer is above)" >&2; exit 2; fi
}
wallet_from() { wallet_of "$1"; FROM_BAL=$W_BAL FROM_COINS=$W_COINS R_BAL=$W_BAL R_COINS=$W_COINS U_BAL=0 U_COINS=0; }
paid() {
  [ "$(cat "$DIR/$1.code")" = 200 ] || return 0
  bu=$(num "$1" '"balance_used"'); cu=$(num "$1" '"coin_used"'); gp=$(num "$1" '"gateway_payment"')
  bu=${bu:-0} cu=${cu:-0} gp=${gp:-0}
  R_BAL=$((R_BAL - bu)) R_COINS=$((R_COINS - cu))
  if [ "$gp" -gt 0 ] && { [ "$bu" -gt 0 ] || [ "$cu" -gt 0 ]; }; then U_BAL=$((U_BAL + bu)) U_COINS=$((U_COINS + cu)); fi
}
span() { if [ "$1" -eq "$2" ]; then echo "$1"; else echo "$1 to $2"; fi; }
defect() { if [ -n "$1" ]; then echo "DEFECT $1: $2"; else echo "DEFECT: $2"; fi; exit 1; }
wallet_check() {
  wallet_of "$1"
  if [ "$W_BAL" -lt "$R_BAL" ] || [ "$W_BAL" -gt $((R_BAL + U_BAL)) ] || [ "$W_COINS" -lt "$R_COINS" ] || [ "$W_COINS" -gt $((R_COINS + U_COINS)) ]; then
    defect "${2:-}" "the wallet holds balance $W_BAL and $W_COINS coins, the payments reported leave balance $(span "$R_BAL" $((R_BAL + U_BAL))) and $(span "$R_COINS" $((R_COINS + U_COINS))) coins"
  fi
  U_BAL=$((W_BAL - R_BAL)) U_COINS=$((W_COINS - R_COINS))
}
taken_within() {
  tb=$((FROM_BAL - R_BAL)) tc=$((FROM_COINS - R_COINS)) mb=$FROM_BAL mc=$FROM_COINS
  [ "$mb" -ge 0 ] || mb=0; [ "$mc" -ge 0 ] || mc=0
  if [ "$tb" -gt "$mb" ] || [ "$tc" -gt "$mc" ]; then
    defect "${1:-}" "together the payments took balance $tb and $tc coins from a wallet of balance $FROM_BAL and $FROM_COINS coins"
  fi
}`

// checks notes that the script uses the check functions.
func (s *Script) checks() { s.checked = true }

// Save adds the curl line of r whose answer the script keeps as name (a
// shell word of letters, digits and _, or one with $i in it, expanded) for
// the checks that follow, and prints on one line.
func (s *Script) Save(name string, r Request) {
	s.lines = append(s.lines, s.SaveLine(name, r))
}

// SaveLine is Save's line, to be placed by the caller (in a loop, in the
// background).
func (s *Script) SaveLine(name string, r Request) string {
	s.checks()
	return fmt.Sprintf("send %s %s", name, s.curl("curl -sS", r))
}

// WalletFrom says that the wallet the profile answer name shows is where
// the check starts from.
func (s *Script) WalletFrom(name string) { s.checks(); s.lines = append(s.lines, "wallet_from "+name) }

// Paid says that the payment answer name took what it reports, if it was
// created.
func (s *Script) Paid(name string) { s.checks(); s.lines = append(s.lines, "paid "+name) }

// WalletCheck checks the wallet the profile answer name shows against what
// the payments since WalletFrom leave; a defect ends the script.
func (s *Script) WalletCheck(name string) {
	s.checks()
	s.lines = append(s.lines, "wallet_check "+name)
}

// Verdict ends the script with NoDefectLine, reached when no check saw the
// defect.
func (s *Script) Verdict() { s.lines = append(s.lines, "echo '"+NoDefectLine+"'") }

// FreshIDLine is the line that draws the fresh partner_trx_id ($ID) again,
// for a script that sends its requests again (a wave tried again).
func FreshIDLine() string { return idLine }
