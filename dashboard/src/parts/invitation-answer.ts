/** What to say once an invitation is made: it was mailed (the link is shown only when mail goes to the local outbox, in development). */
export const invitedMessage = (answer: { mailed: boolean; invitation: { email: string } }) =>
  answer.mailed
    ? `Invitation mailed to ${answer.invitation.email}. They join once they accept it.`
    : `The invitation to ${answer.invitation.email} is saved, but its mail could not be sent: revoke it and invite again later.`;
