// The words for a refusal from the table's socket (docs/protocol.md, "Errors"). The server answers with a code;
// the text a player reads is this browser's, in its own language (the djangojs catalog). Where a limit is on the
// page already (the room's buy-ins, the rules in the view), the text names it.
import { number } from "./format.js";

const TEXTS = () => ({
  above_ride_cap: gettext("Letting it ride, your stake may be at most your last stake and its win (within the cap)."),
  already_bid: gettext("You have bid for the bank already."),
  already_committed: gettext("The next hand's seed is committed already."),
  already_away: gettext("That player already sits out."),
  already_leaving: gettext("You are already leaving after this hand."),
  already_seated: gettext("You are already seated at this table."),
  bad_action_id: gettext("An action id is a text of at most 64 characters."),
  bank_auction: gettext("The bank is bid for at the start of the next hand."),
  bid_too_high: gettext("That bid is above the highest this room allows."),
  not_bidding: gettext("You are not bidding for this bank."),
  stake_above_cover: gettext("Against a multiplied bank, your stake may be at most your stack divided by its multiplier."),
  bad_amount: gettext("That amount is not allowed here."),
  bad_args: gettext("That command's details are not valid."),
  bad_bot: gettext("Bots are basic or expert."),
  bad_chat: gettext("A chat message has 1 to 500 characters."),
  bad_frame: gettext("The table could not read that message."),
  bad_json: gettext("The table could not read that message."),
  bad_position: gettext("There is no such seat."),
  bad_reason: gettext("The reason holds characters that cannot be sent."),
  bad_role: gettext("A seat is a main seat or a side-bettor seat."),
  bad_seat: gettext("There is no such seat."),
  bad_seed: gettext("A seed is 64 hexadecimal digits (32 bytes)."),
  bad_target: gettext("Choose a challenger who plays this hand."),
  bad_version: gettext("The table could not read that message."),
  bad_visibility: gettext("The table could not read that message."),
  bank_empty: gettext("The bank is empty: refill it or pass it."),
  banker_does_not_bet: gettext("The bank does not bet."),
  banned: gettext("Your account is banned."),
  bet_locked: gettext("A confirmed bet cannot change."),
  choose_challenger: gettext("First choose the challenger you back."),
  escape_too_late: gettext("A free hand runs only at its first decision, before another card is drawn or a hand opened."),
  free_hand_off: gettext("This room plays without the free hand."),
  hold_closed: gettext("This seat has been released."),
  club_members_only: gettext("This room is for the members of its club."),
  fixed_stake: gettext("Every stake is the base stake in this game."),
  illegal_action: gettext("You cannot do that now."),
  in_hand: gettext("Top up between hands."),
  insufficient_funds: gettext("You do not have enough for that: see your wallet."),
  jackpot_disabled: gettext("This room has no jackpot."),
  kick_bot: gettext("Bots keep their seats in a practice room."),
  kick_self: gettext("Leave instead of removing yourself."),
  kicked: gettext("The host removed you from this room."),
  muted: gettext("You are muted and cannot chat."),
  must_hit_below_16: gettext("Below 16 you must draw another card."),
  must_bet: gettext("Challengers must stake; when time runs out the default stake is placed."),
  no_commitment: gettext("No seed is committed for the next hand yet: send yours once it is."),
  no_message: gettext("There is no such message in this room."),
  no_player: gettext("There is no such player."),
  no_room: gettext("There is no such room."),
  not_allowed: gettext("You cannot do that here."),
  not_a_free_hand: gettext("Only two cards worth exactly 15 make a free hand."),
  not_openable: gettext("That challenger's hand is settled already."),
  not_away: gettext("You are not away."),
  not_banker: gettext("Only the banker can do that."),
  not_enough_players: gettext("A hand needs a banker and at least one challenger."),
  not_host: gettext("Only the host can do that."),
  not_in_hand: gettext("You are not in this hand."),
  not_seated: gettext("Take a seat first."),
  not_side_bettor: gettext("Only side bettors choose a challenger to back."),
  not_your_turn: gettext("It is not your turn."),
  rate_limited: gettext("Too many messages: wait a moment."),
  reason_required: gettext("Say why."),
  report_self: gettext("You cannot report yourself."),
  retire_not_allowed: gettext("You may retire once the bank's net profit is at least the opening bank."),
  room_closed: gettext("This room is closed."),
  seat_taken: gettext("That seat is taken."),
  seed_too_late: gettext("The cards of this hand are dealt: your seed goes into the next hand."),
  server_error: gettext("Something went wrong; nothing was changed."),
  side_bet_on_banker: gettext("Side bets follow a challenger, never the banker."),
  side_bets_disabled: gettext("This room has no side bettors."),
  side_bettor: gettext("A side bettor backs a challenger instead."),
  sit_out_banker: gettext("The banker keeps the bank: sit them out once it has moved on."),
  sit_out_bot: gettext("Bots play every hand."),
  sit_out_self: gettext("You can sit out only another player."),
  stake_above_third: gettext("The stake may be at most a third of your stack."),
  table_full: gettext("Every seat is taken."),
  unknown_action: gettext("The table does not know that command."),
  unknown_type: gettext("The table does not know that command."),
  wrong_phase: gettext("That is not possible at this moment of the hand."),
});

/** The text for the refusal `code`; `ctx` ({view, cfg}) fills in the limits the page knows. */
export function errorText(code, { view = null, cfg = null } = {}) {
  const rules = view && view.rules;
  if (code === "bad_buy_in" && cfg) {
    return interpolate(gettext("The buy-in is between %(low)s and %(high)s."), { low: number(cfg.buy_in_min), high: number(cfg.buy_in_max) }, true);
  }
  if (code === "stake_not_multiple" && rules) {
    return interpolate(gettext("Stakes are multiples of the base stake (%(base)s)."), { base: number(rules.base_stake) }, true);
  }
  if (code === "must_hit_below_open_from") { // house-rules.md "The banker opens hands one by one"
    return rules && rules.banker_open_from
      ? interpolate(gettext("Below %(n)s the bank must draw another card."), { n: rules.banker_open_from }, true)
      : gettext("The bank must draw another card first.");
  }
  // Asking the host for a longer clock: its module (static/js/clock-ask.js) brought these words (/jsi18n/blind/).
  if (code === "host_sets_clock") return pgettext("screen reader", "You host this room: there is nobody to ask.");
  if (code === "clock_ask_wait") return pgettext("screen reader", "You asked less than two minutes ago: the host has your ask.");
  if (code === "clock_at_most") return pgettext("screen reader", "The clock is already as long as it goes.");
  if (code === "no_clock_ask") return pgettext("screen reader", "Nobody is waiting for an answer about the clock.");
  if (code === "bad_seconds") return pgettext("screen reader", "Add 10, 20 or 30 seconds.");
  // Quick phrases and reactions: their module (static/js/phrases.js) brought these words (/jsi18n/phrases/).
  if (code === "bad_phrase") return pgettext("quick phrase", "There is no such quick phrase.");
  if (code === "bad_reaction") return pgettext("quick phrase", "There is no such reaction.");
  if (code === "phrase_wait") return pgettext("quick phrase", "One quick phrase or reaction every 2 seconds, 5 a minute: wait a moment.");
  // Buy-ins the host approves: its module (static/js/buy-in-approval.js) brought these words (/jsi18n/approve/).
  if (code === "buy_in_pending") return pgettext("buy-in approval", "Your last request is still waiting for the host.");
  if (code === "no_buy_in_request") return pgettext("buy-in approval", "There is no such request in this room.");
  if (code === "buy_in_answered") return pgettext("buy-in approval", "This request was answered already.");
  if (code === "buy_in_lapsed") return pgettext("buy-in approval", "This request waited past its deadline: the player may ask again.");
  // The votes at the table: their module (static/js/vote.js) brought these words (/jsi18n/vote/).
  if (code === "bad_vote_kind") return pgettext("table vote", "A vote ends the room or skips an away player's timers.");
  if (code === "vote_open") return pgettext("table vote", "A vote is under way: answer it first.");
  if (code === "vote_wait") return pgettext("table vote", "You called a vote less than ten minutes ago.");
  if (code === "host_closes") return pgettext("table vote", "You host this room: close it from the menu.");
  if (code === "host_here") return pgettext("table vote", "The host is here: ask them to end the room.");
  if (code === "no_hand") return pgettext("table vote", "No hand is in play.");
  if (code === "player_here") return pgettext("table vote", "That player is here.");
  if (code === "already_skipped") return pgettext("table vote", "That player's timers are already skipped in this hand.");
  if (code === "bad_ballot") return pgettext("table vote", "Answer a vote with yes or no.");
  if (code === "no_vote") return pgettext("table vote", "There is no such vote.");
  if (code === "vote_over") return pgettext("table vote", "That vote is decided.");
  if (code === "vote_expired") return pgettext("table vote", "That vote's time is over.");
  if (code === "not_voter") return pgettext("table vote", "You may not answer this vote.");
  if (code === "already_voted") return pgettext("table vote", "You answered this vote already.");
  if (code === "bad_value") return pgettext("table vote", "Say yes or no.");
  // Spectators by consent: its module (static/js/tv.js) brought these words (/jsi18n/tv/); the first two come without it.
  if (code === "no_spectators") return gettext("This room has no spectators: take a seat to watch.");
  if (code === "spectator_removed") return gettext("The host asked you not to watch this room.");
  if (code === "no_tv") return pgettext("tv mode", "This room is not in TV mode.");
  if (code === "bad_consent") return pgettext("tv mode", "Answer yes or no.");
  if (code === "bad_user") return pgettext("tv mode", "Name a spectator by their user id.");
  if (code === "bad_spectators") return pgettext("tv mode", "Spectators: none, public or TV mode.");
  if (code === "consent_given") return pgettext("tv mode", "Your cards are already shown, one action late.");
  if (code === "consent_not_given") return pgettext("tv mode", "Your cards are not shown.");
  if (code === "not_watching") return pgettext("tv mode", "Nobody of that id is watching.");
  if (code === "seated") return pgettext("tv mode", "This player has a seat: remove the seat instead.");
  if (code === "remove_self") return pgettext("tv mode", "You host this room: you cannot remove yourself.");
  const text = TEXTS()[code];
  return text || interpolate(gettext("Refused (%(code)s)."), { code }, true);
}
