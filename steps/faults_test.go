package steps_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/steps"
)

// TestSuiteDetectsFaults proves the suite can fail: against a reference
// built with one fault, the scenario meant to detect it fails.
func TestSuiteDetectsFaults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fault    reference.Fault
		tags     string
		scenario string
	}{
		{reference.FaultMessageTypo, "@payments", "A payment fully covered by balance and coins is paid and being processed"},
		{reference.FaultProvisionCreatedAs200, "@customers", "A new account is created and a token is returned"},
		{reference.FaultCoinsBeforeBalance, "@payments", "Balance is used first and coins are untouched when the balance suffices"},
		{reference.FaultCoinValueNotHalved, "@limits", "The profile values two coins at one rupiah"},
		{reference.FaultDuplicateTrxAccepted, "@payments", "A reused partner transaction id is always refused"},
		{reference.FaultSyncOpenToAnyToken, "@products", "Only the main account may synchronize the catalog"},
		{reference.FaultStatusCrossPartner, "@payment-status", "Another partner cannot see the partner's transactions (partner transaction id)"},
		{reference.FaultTokenAcrossPartners, "@authentication", "A token is refused with another partner's secret key (the profile)"},
		{reference.FaultProductWithoutLogo, "@products", "The main account synchronizes the catalog with every documented product field"},
		{reference.FaultCustomerIDAsString, "@customers", "A new token works at once and shows the account's own profile"},
		{reference.FaultPaginationOffByOne, "@products", "Paging through the catalog yields every product exactly once"},
		{reference.FaultInternalMethodWithoutFunds, "@payments", "The balance and coin method needs balance or coins to be chosen (nothing chosen)"},
		{reference.FaultNoTrxIDLimit, "@limits", "A partner transaction id over 50 characters is refused"},
		{reference.FaultNoShiftCodeLimit, "@limits", "A shift code over 50 characters is refused"},
		{reference.FaultNoPageSizeLimit, "@limits", "A page size over 100 is refused"},
		{reference.FaultPhoneNotValidated, "@limits", "A destination number outside 10 to 13 digits or not starting with 08 is refused (9 digits)"},
		{reference.FaultProvisionNewIDOnSync, "@customers", "Provisioning a known phone number synchronizes the same account"},
		{reference.FaultDuplicateEmailAccepted, "@customers", "An email address used by another account is refused"},
		{reference.FaultProductTokenMessage, "@authentication", "The product endpoints refuse bad credentials (the product list, an invalid token)"},
		{reference.FaultStatusEmptyAs404, "@payment-status", "Looking up a payment without naming it is refused"},
		{reference.FaultBasePriceCharged, "@payments", "A remainder not covered by balance or coins goes to the payment gateway"},
		{reference.FaultTrxNumberWithoutSlash, "@payments", "A payment fully covered by balance and coins is paid and being processed"},
		{reference.FaultCoveredPaymentUnpaid, "@payments", "A payment fully covered by balance and coins is paid and being processed"},
		{reference.FaultInactiveSubCategoryServed, "@products", "Synchronizing an inactive sub category says it is not yet available"},
		{reference.FaultGatewayRemainderHidden, "@payments", "A remainder not covered by balance or coins goes to the payment gateway"},
		{reference.FaultPricePlanIgnored, "@products", "The product list of a partner without an active price plan carries the price plan message"},
		{reference.FaultErrorsAsText, "@payment-status", "Looking up a payment without naming it is refused"},
	}
	for _, tc := range cases {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel()
			srv := newReference(t, tc.fault)
			res := run(t, srv.URL, tc.tags, nil, 5*time.Second)
			require.Positive(t, res.Failed, "the fault %s went unnoticed", tc.fault)
			var names []string
			for _, sc := range res.Summary.Scenarios {
				if sc.Status == steps.StatusFailed {
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
