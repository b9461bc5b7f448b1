@payment-status
Feature: Payment status
  A partner looks up one transaction by its partner transaction id or by the
  service's transaction number (sections 2.6, 3, 4.7 and 7 of the document).

  @reading:status-record-amounts @reading:gateway-remainder-is-created
  Scenario Outline: A payment is found by its <key>
    Given a cashier provisioned by the partner
    And the cashier paid for a product through a payment gateway
    When the cashier looks up the payment by its <key>
    Then the answer comes back with status 200 and the message "OK"
    And the record matches the payment that was created
    And the record's creation and update times have the form YYYY-MM-DD HH:MM:SS

    Examples:
      | key                    |
      | partner transaction id |
      | transaction number     |

  Scenario: Looking up a payment without naming it is refused
    Given a cashier provisioned by the partner
    When the cashier looks up a payment without naming it
    Then the answer is refused with status 400 and the message "partner_trx_id atau transaction_number wajib diisi."

  Scenario Outline: An unknown transaction is not found (<key>)
    Given a cashier provisioned by the partner
    When the cashier looks up an unknown <key>
    Then the answer is refused with status 404 and the message "Transaksi tidak ditemukan."

    Examples:
      | key                    |
      | partner transaction id |
      | transaction number     |

  @unformed-payment
  Scenario: A transaction whose payment is not yet formed is reported as such
    Given the partner's main account
    When the main account looks up the transaction whose payment is not yet formed
    Then the answer is refused with status 404 and the message "Transaksi payment belum terbentuk."

  @isolation @reading:cross-partner-status-404
  Scenario Outline: Another partner cannot see the partner's transactions (<key>)
    Given a cashier provisioned by the partner
    And the cashier paid for a product through a payment gateway
    And the main account of the other partner
    When the other partner's main account looks up the cashier's payment by its <key>
    Then the other partner is not shown the cashier's transaction
    And by the suite's reading the other partner is answered as for an unknown transaction, with status 404 and the message "Transaksi tidak ditemukan."

    Examples:
      | key                    |
      | partner transaction id |
      | transaction number     |
