package steps_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
)

// mixedScenario is the scenario of a mixed payment: a wallet part, and a
// remainder due through a gateway.
const mixedScenario = "A payment that takes the balance and leaves the rest to a payment gateway leaves the wallet as it reports"

// TestSuiteDetectsFaults proves the suite can fail: against a reference
// built with one fault, the scenario meant to detect it fails. A fault that
// breaks only a reading (a warning in a normal run) is run strict, where a
// failed reading fails its scenario.
func TestSuiteDetectsFaults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fault    reference.Fault
		tags     string
		scenario string
		strict   bool
	}{
		{reference.FaultMessageTypo, "@payments", "A payment fully covered by balance and coins is paid", false},
		{reference.FaultProvisionCreatedAs200, "@customers", "A new account is created and a token is returned", false},
		{reference.FaultCoinsBeforeBalance, "@payments", "Balance is used first and coins are untouched when the balance suffices", false},
		{reference.FaultCoinValueNotHalved, "@limits", "The profile values two coins at one rupiah", false},
		{reference.FaultDuplicateTrxAccepted, "@payments", "A reused partner transaction id is always refused", false},
		{reference.FaultSyncOpenToAnyToken, "@products", "Only the main account may synchronize the catalog", false},
		{reference.FaultStatusCrossPartner, "@payment-status", "Another partner cannot see the partner's transactions (partner transaction id)", false},
		{reference.FaultTokenAcrossPartners, "@authentication", "A token is refused with another partner's secret key (the profile)", false},
		{reference.FaultProductWithoutLogo, "@products", "The main account synchronizes the catalog with every documented product field", false},
		{reference.FaultCustomerIDAsString, "@customers", "A new token works at once and shows the account's own profile", false},
		{reference.FaultPaginationOffByOne, "@products", "Paging through the catalog yields every product exactly once", true},
		{reference.FaultInternalMethodWithoutFunds, "@payments", "The balance and coin method needs balance or coins to be chosen (both turned off)", false},
		{reference.FaultNoTrxIDLimit, "@limits", "A partner transaction id over 50 characters is refused", false},
		{reference.FaultNoShiftCodeLimit, "@limits", "A shift code over 50 characters is refused", false},
		{reference.FaultNoPageSizeLimit, "@limits", "A page size over 100 is refused", false},
		{reference.FaultPhoneNotValidated, "@limits", "A destination number outside 10 to 13 digits or not starting with 08 is refused (9 digits)", false},
		{reference.FaultProvisionNewIDOnSync, "@customers", "Provisioning a known phone number synchronizes the same account", false},
		{reference.FaultDuplicateEmailAccepted, "@customers", "An email address used by another account is refused", false},
		{reference.FaultProductTokenMessage, "@authentication", "The product endpoints refuse bad credentials (the product list, an invalid token)", false},
		{reference.FaultStatusEmptyAs404, "@payment-status", "Looking up a payment without naming it is refused", false},
		{reference.FaultBasePriceCharged, "@payments", "A remainder not covered by balance or coins goes to the payment gateway", true},
		{reference.FaultTrxNumberWithoutSlash, "@payments", "A payment fully covered by balance and coins is paid", false},
		{reference.FaultCoveredPaymentUnpaid, "@payments", "A payment fully covered by balance and coins is paid", false},
		{reference.FaultInactiveSubCategoryServed, "@products", "Synchronizing an inactive sub category says it is not yet available", false},
		{reference.FaultGatewayRemainderHidden, "@payments", "A remainder not covered by balance or coins goes to the payment gateway", false},
		{reference.FaultPricePlanIgnored, "@products", "The product list of a partner without an active price plan carries the price plan message", true},
		{reference.FaultErrorsAsText, "@payment-status", "Looking up a payment without naming it is refused", false},
		// Each of these document checks has a fault only it detects.
		{reference.FaultPageSizeIgnored, "@products", "A page size gives pages of that size (7 per page)", false},
		{reference.FaultEmailNotValidated, "@customers", "An email address that is not valid creates no account (no at sign)", false},
		{reference.FaultInactiveProductSold, "@payments", "A product that is not available for sale cannot be paid", false},
		{reference.FaultInternalMethodMisnamed, "@payments", "A payment fully covered by balance and coins is paid", false},
		{reference.FaultAccountsAcrossPartners, "@customers", "Phone numbers and email addresses are unique per partner, not across partners", false},
		{reference.FaultLengthInBytes, "@limits", "Lengths are counted in characters, not bytes (partner transaction id of 50 multi-byte characters)", false},
		{reference.FaultListOnlyPrabayar, "@products", "A cashier lists the products of each sub category (paket-data)", false},
		{reference.FaultNullOptionalRefused, "@payments", "Optional fields may be null (promotion id)", false},
		// The document-level rules of internal/contract/rules.go: each has a
		// fault its scenario fails on in a normal run, not only a warning.
		{reference.FaultJSONLabelledText, "@payment-methods", "The payment methods come back as JSON, labelled application/json", false},
		{reference.FaultTotalPagesRoundedDown, "@products", "The page count counts a last page that is not full (3 per page)", false},
		{reference.FaultCoinsBeyondTotal, "@payments", "When the balance is short, all of it is used and coins make up the rest", false},
		{reference.FaultRetryDebitsAgain, "@payments", "A reused partner transaction id never debits the wallet twice", false},
		{reference.FaultCoinsWithoutUseCoin, "@payments", "Coins are spent only when the cashier asks for them", false},
		{reference.FaultStaleProfile, "@payments", "Balance is used first and coins are untouched when the balance suffices", false},
		// A wallet outside the range a mixed payment leaves open, above it
		// and below it.
		{reference.FaultMixedWalletCredited, "@payments", mixedScenario, false},
		{reference.FaultMixedWalletTakenTwice, "@payments", mixedScenario, false},
	}
	for _, tc := range cases {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel()
			srv := httpapitest.NewServer(t, tc.fault)
			res := runOpts(t, steps.Options{BaseURL: srv.URL, Tags: tc.tags, Strict: tc.strict, RequestTimeout: 5 * time.Second})
			require.Positive(t, res.Failed, "the fault %s went unnoticed", tc.fault)
			var names []string
			for _, sc := range res.Summary.Scenarios {
				if sc.Status == report.StatusFailed {
					names = append(names, sc.Name)
					if sc.Name == tc.scenario {
						assert.NotEmpty(t, sc.Reason)
						return
					}
				}
			}
			t.Errorf("fault %s: scenario %q did not fail; failed were:\n  %s", tc.fault, tc.scenario, strings.Join(names, "\n  "))
		})
	}
}

// TestEveryShapeFaultIsReportedAtItsField runs the suite against the
// reference with each fault that rewrites answers (the wire faults; a
// rule fault's answers keep their shape): every failure that openapi.yaml
// judged names the pointer of the field the fault changed and its rule,
// and no fault changes a shape this test does not know.
func TestEveryShapeFaultIsReportedAtItsField(t *testing.T) {
	t.Parallel()
	for _, f := range reference.AllFaults() {
		if reference.IsRuleFault(f) {
			continue
		}
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			srv := httpapitest.NewServer(t, f)
			res := runOpts(t, steps.Options{BaseURL: srv.URL, RequestTimeout: 5 * time.Second})
			ptr, known := httpapitest.ShapeFaults[f]
			judged := 0
			for _, sc := range res.Summary.Scenarios {
				assert.NotRegexp(t, `at /?:\s*(\n|$)`, sc.Reason, sc.Name)
				if sc.Status != report.StatusFailed || sc.Cause == nil || sc.Cause.Field == "" {
					continue
				}
				judged++
				require.True(t, known, "fault %s changes the shape of an answer (%s): add it to httpapitest.ShapeFaults", f, sc.Cause.Headline)
				want := "at " + ptr + ": "
				if ptr == "" {
					want = "the body: "
				}
				assert.Contains(t, sc.Reason, want, sc.Name)
				assert.NotEmpty(t, sc.Cause.Rule, sc.Name)
			}
			if known {
				assert.Positive(t, judged, "no scenario caught fault %s through openapi.yaml", f)
			}
		})
	}
}
