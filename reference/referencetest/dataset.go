package referencetest

// Credentials of the embedded data set (reference/dataset/default.yaml),
// for the tests of the reference and its HTTP server.
const (
	KeyNusantara = "sk-nusantara-7f3a9c" // partner 1, active price plan
	KeyWarung    = "sk-warung-41d2e8"    // partner 2
	KeyNonaktif  = "sk-nonaktif-9b0c11"  // partner 3, inactive price plan

	TokMain     = "tok-nusantara-main"          // partner 1's main account
	TokFunded   = "tok-nusantara-funded"        // a funded customer of partner 1
	TokSplit    = "tok-nusantara-split"         // a customer with little balance and some coins
	TokEmpty    = "tok-nusantara-empty"         // a customer with no money
	TokBroken   = "tok-nusantara-broken-wallet" // a customer whose wallet is unavailable
	TokWarung   = "tok-warung-main"             // partner 2's main account
	TokWarungC  = "tok-warung-funded"           // a funded customer of partner 2
	TokNonaktif = "tok-nonaktif-main"           // partner 3's main account
)
