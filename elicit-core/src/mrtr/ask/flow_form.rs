//! A URL flow's step asked in a form with no field (a "link form"): its own constructor, kept
//! apart from the other asks so that what it adds to this module is one place.

use serde_json::Value;

use super::{Ask, Request, Unsolicited};
use crate::mrtr::result::elicit_request;
use crate::request::FormRequest;
use crate::url_mode::{FlowOutcome, FlowStatus};

impl Ask<()> {
    /// A URL flow's step ([`Round::flow_id`](crate::mrtr::Round::flow_id)) asked as `form`, a
    /// form whose message gives the page's URL (for a client that cannot take the URL question):
    /// accept means "I finished there", and the answer is read with the flow's `status` as the
    /// server's [`FlowStore`](crate::url_mode::FlowStore) has it now, as
    /// [`url_flow`](Ask::url_flow) reads it ([`FlowOutcome::of`]): a page that finished is read
    /// as it finished, whatever the client answered.
    ///
    /// An accept whose step is still open is asked again as `again` (the form saying the step
    /// is not finished), not counted against the round's re-ask bound. An answer is read only
    /// to this question, asked by an earlier round: never before it was asked, whatever
    /// [`answerable_before_asked`](Ask::answerable_before_asked) says, and a fresh accept is
    /// timed against the asking time sealed in the state, as a consent is: one faster than a
    /// person can read the form is not taken ([`MrtrError::AutomaticConsent`](crate::mrtr::MrtrError::AutomaticConsent)).
    #[must_use]
    pub fn flow_form<T>(
        key: impl Into<String>,
        form: &FormRequest<T>,
        again: &FormRequest<T>,
        status: FlowStatus,
    ) -> Ask<FlowOutcome> {
        let again: Value = elicit_request(again);
        Ask {
            key: key.into(),
            request: Request::Owned(elicit_request(form)),
            name: Some(form.name().to_owned().into()),
            before_asked: Unsolicited::Never,
            counted: None,
            // A form with no field: nothing to adapt, nothing to seal.
            drawn: None,
            read: super::flow_reader(status, again),
        }
    }
}
