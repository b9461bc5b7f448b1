package stepstest

import (
	"fmt"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/reference"
)

// FaultScenario is a fault of the reference, a scenario that fails
// against it, and the tags of the area the scenario is in. Strict is set
// when the scenario's failed check rests on a reading: it fails only a
// strict run (a normal one warns).
type FaultScenario struct {
	Fault    reference.Fault
	Tags     string
	Scenario string
	Strict   bool
}

// mixedScenario is the scenario of a mixed payment: a wallet part, and a
// remainder due through a gateway.
const mixedScenario = "A payment that takes the balance and leaves the rest to a payment gateway leaves the wallet as it reports"

// FaultScenarios are the faults of the reference a scenario catches, each
// with the scenario meant to catch it: the suite's fault test
// (steps.TestSuiteDetectsFaults) and the whole run's
// (generative.TestEveryFaultFailsTheWholeRun) read it.
var FaultScenarios = []FaultScenario{
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

// Locate is where the scenario named name is in the suite's feature files
// (file:line, as a run's Locations take it).
func Locate(name string) (string, error) {
	fts, err := gherkin.Load(features.FS)
	if err != nil {
		return "", err
	}
	for _, f := range fts.Files {
		for _, s := range f.Scenarios {
			if s.Name == name {
				return s.Location(), nil
			}
		}
	}
	return "", fmt.Errorf("no scenario named %q in the feature files", name)
}

// FaultScenarioOf is the entry of FaultScenarios for fault, if it has one.
func FaultScenarioOf(fault reference.Fault) (FaultScenario, bool) {
	for _, fs := range FaultScenarios {
		if fs.Fault == fault {
			return fs, true
		}
	}
	return FaultScenario{}, false
}
