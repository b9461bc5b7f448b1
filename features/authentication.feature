@authentication
Feature: Authentication
  Every call carries the partner's secret key; every call except account
  provisioning also carries the bearer token of one account. Failures answer
  401 with a message of the endpoint group's row (sections 5 and 7 of the
  document). A row joins its messages with "or": which message answers which
  problem is the suite's reading, and a server that maps them differently
  within the row passes with a warning.

  @reading:auth-message-per-condition @reading:sync-token-401
  Scenario Outline: The product endpoints refuse bad credentials (<endpoint>, <problem>)
    Given the partner's main account
    When the partner calls <endpoint> with <problem>
    Then the request is refused with status 401 and a message of its endpoint group
    And by the suite's reading the message is "<message>"

    Examples:
      | endpoint         | problem           | message                                    |
      | the product list | a wrong secret key | Secret Key tidak valid.                   |
      | the product list | no token          | Token wajib diisi.                         |
      | the product list | an invalid token  | Token tidak valid atau sudah kedaluwarsa.  |
      | the product sync | a wrong secret key | Secret Key tidak valid.                   |
      | the product sync | no token          | Token wajib diisi.                         |
      | the product sync | an invalid token  | Token tidak valid atau sudah kedaluwarsa.  |

  @reading:auth-message-per-condition
  Scenario Outline: The customer and payment endpoints refuse a missing or invalid token (<endpoint>, <problem>)
    Given a cashier provisioned by the partner
    When the partner calls <endpoint> with <problem>
    Then the request is refused with status 401 and a message of its endpoint group
    And by the suite's reading the message is "<message>"

    Examples:
      | endpoint             | problem          | message            |
      | the profile          | no token         | Token wajib diisi. |
      | the profile          | an invalid token | Token tidak valid. |
      | the payment methods  | no token         | Token wajib diisi. |
      | the payment methods  | an invalid token | Token tidak valid. |
      | the payment creation | no token         | Token wajib diisi. |
      | the payment creation | an invalid token | Token tidak valid. |
      | the payment status   | no token         | Token wajib diisi. |
      | the payment status   | an invalid token | Token tidak valid. |

  @reading:auth-message-per-condition
  Scenario Outline: The customer and payment endpoints refuse a wrong secret key (<endpoint>)
    Given a cashier provisioned by the partner
    When the partner calls <endpoint> with a wrong secret key
    Then the request is refused with status 401 and a message of its endpoint group
    And by the suite's reading the message begins "Akses ditolak"

    Examples:
      | endpoint             |
      | the profile          |
      | the payment methods  |
      | the payment creation |
      | the payment status   |

  @reading:auth-message-per-condition
  Scenario: Provisioning with a wrong secret key is refused
    When the partner provisions a new cashier account with a wrong secret key
    Then the request is refused with status 401 and a message of its endpoint group
    And by the suite's reading the message begins "Akses ditolak"

  @isolation @reading:cross-partner-token-401
  Scenario Outline: A token is refused with another partner's secret key (<endpoint>)
    Given a cashier provisioned by the partner
    When the cashier calls <endpoint> with the other partner's secret key
    Then the other partner's secret key gets no answer of the cashier's account
    And by the suite's reading the request is refused with status 401 and a message of its endpoint group

    Examples:
      | endpoint             |
      | the product list     |
      | the profile          |
      | the payment methods  |
      | the payment status   |
